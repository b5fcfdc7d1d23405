/* An in-memory cache plugin for the tests of `imagepipe plugin test`.
 * Compiled by the tests with cc. Thread-safe: one mutex per store. A configuration "lock=PATH" makes the store
 * behave like a shared one (a Redis namespace): it holds an exclusive flock on PATH while open, and an open while
 * another process holds it fails, so a test sees two checks using the store at once.
 *
 *   BROKEN_CACHE_FOUND_ON_MISS   get of a missing key answers OK with no bytes instead of NOT_FOUND
 *   BROKEN_CACHE_KEEPS_OLD_VALUE put of an existing key keeps the old value
 */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include "imagepipe/imagepipe.h"

typedef struct entry {
    char *key;
    uint8_t *value;
    size_t size;
    struct entry *next;
} entry;

struct ip_cache_store {
    pthread_mutex_t lock;
    entry *entries;
    uint64_t hits, misses;
    int lock_fd;  /* -1, or the flock held while open ("lock=PATH") */
};

static void set_message(ip_message message, const char *text) {
    if (message.capacity == 0) return;
    strncpy(message.buffer, text, message.capacity - 1);
    message.buffer[message.capacity - 1] = 0;
}

static entry **find(ip_cache_store *store, const char *key) {
    entry **link = &store->entries;
    while (*link && strcmp((*link)->key, key) != 0) link = &(*link)->next;
    return link;
}

static ip_status cache_open(const char *configuration, ip_cache_store **store, ip_message message) {
    int lock_fd = -1;
    if (configuration && strncmp(configuration, "lock=", 5) == 0) {
        lock_fd = open(configuration + 5, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (lock_fd < 0) {
            set_message(message, "cannot open the lock file");
            return IP_STATUS_IO;
        }
        if (flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
            close(lock_fd);
            set_message(message, "the store is open in another process at the same time");
            return IP_STATUS_IO;
        }
        usleep(300 * 1000);  /* hold it long enough that a check running beside this one would collide */
    }
    *store = calloc(1, sizeof(ip_cache_store));
    if (!*store) {
        if (lock_fd >= 0) close(lock_fd);
        set_message(message, "out of memory");
        return IP_STATUS_NO_MEMORY;
    }
    (*store)->lock_fd = lock_fd;
    pthread_mutex_init(&(*store)->lock, NULL);
    return IP_STATUS_OK;
}

static ip_status cache_get(ip_cache_store *store, const char *key, const ip_byte_sink *sink, ip_message message) {
    ip_status status = IP_STATUS_OK;
    (void)message;
    pthread_mutex_lock(&store->lock);
    entry *found = *find(store, key);
    if (!found) {
        store->misses++;
#ifndef BROKEN_CACHE_FOUND_ON_MISS
        set_message(message, "no such key");
        status = IP_STATUS_NOT_FOUND;
#endif
    } else {
        store->hits++;
        if (found->size > 0) status = sink->write(sink->context, found->value, found->size);
    }
    pthread_mutex_unlock(&store->lock);
    return status;
}

static ip_status cache_put(ip_cache_store *store, const char *key, const uint8_t *data, size_t size, ip_message message) {
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) {
        set_message(message, "out of memory");
        return IP_STATUS_NO_MEMORY;
    }
    if (size) memcpy(copy, data, size);
    pthread_mutex_lock(&store->lock);
    entry **link = find(store, key);
    if (*link) {
#ifdef BROKEN_CACHE_KEEPS_OLD_VALUE
        free(copy);
#else
        free((*link)->value);
        (*link)->value = copy;
        (*link)->size = size;
#endif
    } else {
        entry *added = calloc(1, sizeof(entry));
        char *name = strdup(key);
        if (!added || !name) {
            free(added);
            free(name);
            free(copy);
            pthread_mutex_unlock(&store->lock);
            set_message(message, "out of memory");
            return IP_STATUS_NO_MEMORY;
        }
        added->key = name;
        added->value = copy;
        added->size = size;
        added->next = store->entries;
        store->entries = added;
    }
    pthread_mutex_unlock(&store->lock);
    return IP_STATUS_OK;
}

static void free_entry(entry *e) {
    free(e->key);
    free(e->value);
    free(e);
}

static ip_status cache_remove(ip_cache_store *store, const char *key, ip_message message) {
    (void)message;
    pthread_mutex_lock(&store->lock);
    entry **link = find(store, key);
    if (*link) {
        entry *gone = *link;
        *link = gone->next;
        free_entry(gone);
    }
    pthread_mutex_unlock(&store->lock);
    return IP_STATUS_OK;
}

static ip_status cache_clear(ip_cache_store *store, ip_message message) {
    (void)message;
    pthread_mutex_lock(&store->lock);
    while (store->entries) {
        entry *gone = store->entries;
        store->entries = gone->next;
        free_entry(gone);
    }
    pthread_mutex_unlock(&store->lock);
    return IP_STATUS_OK;
}

static ip_status cache_stats(ip_cache_store *store, ip_cache_stats *stats) {
    pthread_mutex_lock(&store->lock);
    uint64_t count = 0, bytes = 0;
    for (entry *e = store->entries; e; e = e->next) {
        count++;
        bytes += e->size;
    }
    stats->entry_count = count;
    stats->total_bytes = bytes;
    stats->hits = store->hits;
    stats->misses = store->misses;
    pthread_mutex_unlock(&store->lock);
    return IP_STATUS_OK;
}

static void cache_close(ip_cache_store *store) {
    ip_message none = {NULL, 0};
    if (!store) return;
    cache_clear(store, none);
    if (store->lock_fd >= 0) close(store->lock_fd);
    pthread_mutex_destroy(&store->lock);
    free(store);
}

static const ip_cache_descriptor descriptor = {
    sizeof(ip_cache_descriptor), "org.imagepipe.test.memory-cache/1", "In-memory test cache", "1.0.0", IP_CACHE_THREAD_SAFE, 100,
};
static const ip_cache cache = {
    .struct_size = sizeof(ip_cache), .descriptor = &descriptor, .open = cache_open, .get = cache_get, .put = cache_put,
    .remove = cache_remove, .clear = cache_clear, .stats = cache_stats, .close = cache_close,
};
static const ip_cache *const caches[] = {&cache};
static const ip_cache_factory factory = {sizeof(ip_cache_factory), 1, caches};

static ip_status plugin_init(const ip_host *host, const char *plugin_path, uint32_t host_minor, uint32_t *plugin_minor,
                             ip_message message) {
    (void)plugin_path;
    const uint32_t built_minor = IP_ABI_MINOR;
    (void)host;
    (void)message;
    *plugin_minor = host_minor < built_minor ? host_minor : built_minor;
    return IP_STATUS_OK;
}

static const void *get_factory(const char *id) {
    return strcmp(id, IP_CACHE_FACTORY_ID) == 0 ? &factory : NULL;
}

static const ip_plugin_entry plugin_entry = {
    sizeof(ip_plugin_entry), IP_ABI_MAJOR, IP_ABI_MINOR, "org.imagepipe.test.memory-cache", "Memory cache fixture", "1.0.0",
    "imagepipe tests", "an in-memory cache plugin for the plugin tester", plugin_init, NULL, get_factory, NULL,
};

__attribute__((visibility("default"))) const ip_plugin_entry *imagepipe_plugin_entry(void) { return &plugin_entry; }
