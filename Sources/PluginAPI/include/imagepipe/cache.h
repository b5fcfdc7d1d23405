/* imagepipe plugin ABI — caches of encoded bytes (a shared tier such as Redis, a custom store).
 *
 * Factory ID "org.imagepipe.caches/1": get_factory returns a const ip_cache_factory *.
 * Keys are the host's serialised cache keys (UTF-8, at most 4096 bytes); a cache maps them to opaque bytes.
 */
#ifndef IMAGEPIPE_CACHE_H
#define IMAGEPIPE_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include "host.h"
#include "status.h"
#include "export.h"

IP_EXTERN_C_BEGIN

#define IP_CACHE_FACTORY_ID "org.imagepipe.caches/1"

#define IP_CACHE_THREAD_SAFE (1ull << 0)
/* Entries survive the process (disk, network). */
#define IP_CACHE_PERSISTENT (1ull << 1)
/* Several processes may share the store. */
#define IP_CACHE_SHARED (1ull << 2)

typedef struct ip_cache_descriptor {
    uint32_t struct_size;
    const char *id;
    const char *name;
    const char *version;
    uint64_t capabilities;
    int32_t priority;
} ip_cache_descriptor;

typedef struct ip_cache_stats {
    uint32_t struct_size;
    uint64_t entry_count;
    uint64_t total_bytes;
    uint64_t hits;
    uint64_t misses;
} ip_cache_stats;

typedef struct ip_cache_store ip_cache_store;

typedef struct ip_cache {
    uint32_t struct_size;
    const ip_cache_descriptor *descriptor;
    /* Opens a store from a configuration string (cache-specific, e.g. "redis://127.0.0.1:6379/0 ns=thumbs";
     * may be NULL or empty for defaults). *store is plugin-owned until close(). [host-thread] */
    ip_status (*open)(const char *configuration, ip_cache_store **store, ip_message message);
    /* Looks a key up: OK with the value written to sink, NOT_FOUND on a miss. [thread-safe if IP_CACHE_THREAD_SAFE] */
    ip_status (*get)(ip_cache_store *store, const char *key, const ip_byte_sink *sink, ip_message message);
    /* Stores (or replaces) a value; data is borrowed. [thread-safe if IP_CACHE_THREAD_SAFE] */
    ip_status (*put)(ip_cache_store *store, const char *key, const uint8_t *data, size_t size, ip_message message);
    /* Removes a key; OK also when it was absent. [thread-safe if IP_CACHE_THREAD_SAFE] */
    ip_status (*remove)(ip_cache_store *store, const char *key, ip_message message);
    /* Removes every entry of this store. [thread-safe if IP_CACHE_THREAD_SAFE] */
    ip_status (*clear)(ip_cache_store *store, ip_message message);
    /* Fills *stats (struct_size set by the host; fill only fields within it) and returns OK. The slot itself may
     * be NULL when the cache keeps no statistics: the host then reports none. [thread-safe] */
    ip_status (*stats)(ip_cache_store *store, ip_cache_stats *stats);
    /* Closes the store; NULL is ignored. [host-thread] */
    void (*close)(ip_cache_store *store);

    /* ---- ABI 1.1 ----
     * open, told which cache it opens (the pointer the factory listed, as coder.h's "2" slots): the other slots get
     * the plugin's own store. A host that speaks 1.1 calls open2 when it is non-NULL, else open. [host-thread] */
    ip_status (*open2)(const struct ip_cache *cache, const char *configuration, ip_cache_store **store,
                       ip_message message);
} ip_cache;

typedef struct ip_cache_factory {
    uint32_t struct_size;
    uint32_t cache_count;
    const ip_cache *const *caches;
} ip_cache_factory;

IP_EXTERN_C_END

#endif
