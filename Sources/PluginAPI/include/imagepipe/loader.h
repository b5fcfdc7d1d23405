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
#include "host.h"
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
/* ABI 1.1: the loader also writes objects of its schemes (put, describe): `imagepipe render -o s3://...`, a batch's
 * --out-dir s3://... The host refuses a loader that claims it without both slots. */
#define IP_LOADER_WRITES (1ull << 2)
/* ABI 1.1: a request header line "Range: bytes=A-B" is sent as a byte-range request, and the answer is reported as
 * it comes: 206 with its Content-Range header (through the 1.1 header callback) and only those bytes, or 200 with
 * the whole body when the origin ignores ranges. The host asks a prefix (`imagepipe info` of a JPEG in S3 reads its
 * first 64 KiB) only of a loader that claims this; a loader without it may send the line or drop it. */
#define IP_LOADER_RANGES (1ull << 3)

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

    /* ---- ABI 1.1: a loader calls these only when callbacks->struct_size covers them and they are non-NULL ---- */
    /* One header line of the final response (the one response() describes), before response(): name as sent, value
     * without its line end or surrounding blanks, both borrowed for the call. Repeated names come as repeated calls.
     * Returns non-zero to reject the response, as response() does. Lets the host see validators and freshness
     * (ETag, Last-Modified, Cache-Control, Age, Expires) without the ABI naming each one. [loader-thread] */
    int32_t (*header)(void *context, const char *name, const char *value);
    /* The loader is about to follow a redirect: the 3xx status_code and the absolute target URL (resolved against
     * the URL that answered; borrowed for the call). Returns non-zero to refuse the hop: the loader then connects to
     * nothing more and completes with IP_STATUS_REFUSED, whatever the target is (so a refusal never tells whether
     * the target would have answered). Called once per hop, before any connection to the target. Lets the host
     * hold every hop to the policy it held the first URL to. [loader-thread] */
    int32_t (*redirect)(void *context, int32_t status_code, const char *location);
} ip_load_callbacks;

/* ABI 1.1: one object to write (ip_loader.put). Everything is borrowed for the call. */
typedef struct ip_put_request {
    uint32_t struct_size;
    /* Absolute URL of the object to create or replace. */
    const char *url;
    const uint8_t *data;
    size_t size;
    /* The media type the object is served with ("image/webp"); NULL for the loader's default. */
    const char *content_type;
    /* NULL-terminated "name: value" lines kept with the object and given back by describe (S3: x-amz-meta-NAME).
     * Names are lower-case letters, digits and '-'; values printable ASCII. May be NULL. */
    const char *const *metadata;
    /* Whole-write timeout in milliseconds; 0 = the loader's default. */
    uint32_t timeout_ms;
} ip_put_request;

/* ABI 1.1: what describe reports of a stored object. */
typedef struct ip_object_info {
    uint32_t struct_size;
    /* Bytes; -1 when unknown. */
    int64_t size;
    /* Last modification, seconds since the Unix epoch; -1 when unknown. */
    int64_t modified;
} ip_object_info;

typedef struct ip_load_task ip_load_task;
/* Opaque to the host (ABI 1.1): one configured instance of a loader. */
typedef struct ip_loader_instance ip_loader_instance;

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

    /* ---- ABI 1.1: configured instances ----
     * Configuration reaches a loader from the host, never from the plugin's own environment or files it chooses:
     * the host owns configuration (command line, service settings, credentials it was handed), so two pipelines in
     * one process can use one loader differently, and what a loader obeys is what the host was told.
     * open: makes an instance of this loader (the pointer the factory listed) from `configuration`: "key=value"
     * lines separated by "\n", keys the loader documents; NULL or "" for its defaults. A key the loader does not
     * know, or a value it cannot use, fails the open with IP_STATUS_UNSUPPORTED and a message naming the key,
     * so a typo is never silently ignored. *instance is plugin-owned until close(). [host-thread]
     * start2: start() within an instance. [thread-safe]
     * close: releases an instance after its last task was released; NULL is ignored. [host-thread]
     * Rule: the three come together. A host that speaks 1.1 opens an instance of a loader whose open is non-NULL
     * before its first load and starts every load of it with start2; cancel and release work on tasks of either. A
     * loader with only the 1.1 slots must refuse a 1.0 host in init(). */
    ip_status (*open)(const struct ip_loader *loader, const char *configuration, ip_loader_instance **instance,
                      ip_message message);
    ip_status (*start2)(ip_loader_instance *instance, const ip_load_request *request,
                        const ip_load_callbacks *callbacks, ip_load_task **task, ip_message message);
    void (*close)(ip_loader_instance *instance);

    /* ---- ABI 1.1: writing (IP_LOADER_WRITES; both slots together, within an instance) ----
     * put: stores request->data under request->url, replacing what was there, all or nothing (a reader never sees
     * half an object: S3's PUT and multipart completion are atomic), and returns OK or an error status with a
     * message in the pipeline's terms (NOT_FOUND for a missing bucket, REFUSED for denied access). Synchronous:
     * it returns when the object is stored. [thread-safe]
     * describe: what is stored at url without reading its body: OK with *info filled (struct_size set by the host;
     * fill only fields within it) and the metadata lines put stored written to `metadata` as "name: value\n"
     * lines, or NOT_FOUND when nothing is stored there. [thread-safe] */
    ip_status (*put)(ip_loader_instance *instance, const ip_put_request *request, ip_message message);
    ip_status (*describe)(ip_loader_instance *instance, const char *url, ip_object_info *info,
                          const ip_byte_sink *metadata, ip_message message);
} ip_loader;

typedef struct ip_loader_factory {
    uint32_t struct_size;
    uint32_t loader_count;
    const ip_loader *const *loaders;
} ip_loader_factory;

IP_EXTERN_C_END

#endif
