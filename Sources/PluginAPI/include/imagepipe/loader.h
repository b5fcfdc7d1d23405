/* imagepipe plugin ABI — loaders (fetch the bytes behind a URL).
 *
 * Factory ID "org.imagepipe.loaders/1": get_factory returns a const ip_loader_factory *.
 * A load is asynchronous: start() returns at once and the loader reports through callbacks, which may run on a
 * loader-owned thread or synchronously inside start(). The sequence is always:
 *   response? -> data* -> complete (exactly once, last)
 */
#ifndef IMAGEPIPE_LOADER_H
#define IMAGEPIPE_LOADER_H

#include <stddef.h>
#include <stdint.h>
#include "options.h"
#include "status.h"
#include "export.h"

IP_EXTERN_C_BEGIN

#define IP_LOADER_FACTORY_ID "org.imagepipe.loaders/1"

/* Capability flags (ip_loader_descriptor.capabilities). Informational in ABI 1.x: every ip_loader slot is
 * [thread-safe] whatever the bits say (the host starts loads from several threads at once, and a loader that
 * cannot run two loads at once serialises inside start()); the bits are shown by `imagepipe loaders`. */
/* The loader states that its slots may run concurrently (the ABI requires it anyway; see above). */
#define IP_LOADER_THREAD_SAFE (1ull << 0)
/* Reports expected sizes before the body (Content-Length, file size). */
#define IP_LOADER_KNOWS_SIZE (1ull << 1)

/* Routing data, read before any slot is called; static (see imagepipe.h, Lifetimes). */
typedef struct ip_loader_descriptor {
    uint32_t struct_size;
    /* Reverse-DNS and versioned, unique among all components: "org.imagepipe.loader.http/1". The first loader with
     * an ID on the search path wins; later ones are listed as shadowed. */
    const char *id;
    /* Human-readable name and version, shown by `imagepipe loaders`. */
    const char *name;
    const char *version;
    /* NULL-terminated, lower case, without ":" — e.g. "file", "http", "https". */
    const char *const *schemes;
    /* IP_LOADER_* bits. */
    uint64_t capabilities;
    /* Among loaders of one scheme, the highest priority wins; equal priorities go by search-path order. The
     * project's loaders use 100. */
    int32_t priority;
} ip_loader_descriptor;

/* Load policy flags (ip_load_request.flags). */
/* Refuse loopback, private (RFC 1918, unique-local), link-local, carrier-grade NAT, unspecified, multicast and
 * other non-public destinations: checked against the resolved address of every connection the load makes or
 * reuses, redirects included, before a request is sent on it — so neither a DNS name, a redirect nor DNS
 * rebinding reaches an internal service (SSRF). Complete with IP_STATUS_REFUSED and a message naming the address. */
#define IP_LOAD_REFUSE_PRIVATE_ADDRESSES (1u << 0)
/* Follow no redirect (max_redirects 0 means the loader's default): a 3xx response is the response. */
#define IP_LOAD_NO_REDIRECTS (1u << 1)

typedef struct ip_load_request {
    uint32_t struct_size;
    /* Absolute URL, or a plain absolute path for the file scheme. Borrowed until start() returns. */
    const char *url;
    /* NULL-terminated "Name: value" lines to send (HTTP); may be NULL. Borrowed until start() returns. */
    const char *const *headers;
    /* Maximum body bytes: more → complete(LIMIT_EXCEEDED) at once (also when a header announces more). 0 = none. */
    uint64_t max_bytes;
    /* Whole-transfer timeout in milliseconds; 0 = the loader's default. */
    uint32_t timeout_ms;
    uint32_t connect_timeout_ms;
    /* Redirects to follow; 0 = the loader's default. */
    uint32_t max_redirects;
    /* IP_LOAD_* bits. */
    uint32_t flags;
    /* Milliseconds from start() until the response headers begin to arrive; 0 = the loader's default. A server
     * that accepts the connection and never answers then fails at this deadline, not at timeout_ms. */
    uint32_t first_byte_timeout_ms;
} ip_load_request;

typedef struct ip_load_callbacks {
    uint32_t struct_size;
    /* Host-owned; passed back verbatim. */
    void *context;
    /* Headers are in: status_code (HTTP status, 0 for non-HTTP), expected_size (-1 unknown), content_type
     * (borrowed for the call, may be NULL), effective_url after redirects (borrowed, may be NULL).
     * Returns non-zero to reject the response: the loader then stops and completes with IP_STATUS_CANCELLED
     * or the status the host asked for. At most once. [loader-thread] */
    int32_t (*response)(void *context, int32_t status_code, int64_t expected_size, const char *content_type,
                        const char *effective_url);
    /* The next bytes of the body, borrowed for the call. Returns non-zero to stop the transfer. [loader-thread] */
    int32_t (*data)(void *context, const uint8_t *bytes, size_t size);
    /* The end: OK or an error status with a message (borrowed for the call). Exactly once. [loader-thread] */
    void (*complete)(void *context, ip_status status, const char *message);
} ip_load_callbacks;

typedef struct ip_load_task ip_load_task;

typedef struct ip_loader {
    uint32_t struct_size;
    const ip_loader_descriptor *descriptor;
    /* Starts a load. On OK, *task is plugin-owned until release() and complete() will be called exactly once;
     * on any other status no callback is ever called. callbacks is copied by the loader. [thread-safe] */
    ip_status (*start)(const ip_load_request *request, const ip_load_callbacks *callbacks, ip_load_task **task,
                       ip_message message);
    /* Asks the load to stop soon; complete(CANCELLED) follows unless it already completed. [thread-safe] */
    void (*cancel)(ip_load_task *task);
    /* Frees the task; called by the host once, after complete(). [thread-safe] */
    void (*release)(ip_load_task *task);
} ip_loader;

typedef struct ip_loader_factory {
    uint32_t struct_size;
    uint32_t loader_count;
    const ip_loader *const *loaders;
} ip_loader_factory;

IP_EXTERN_C_END

#endif
