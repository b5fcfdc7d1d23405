/* imagepipe plugin ABI — services the host offers to plugins.
 *
 * The host passes one ip_host to init(); it stays valid for the life of the process. Per-call state (limits,
 * allocation accounting, cancellation) lives behind an opaque ip_call handle that the host passes in every
 * request; plugins hand it back to the services below and never look inside.
 */
#ifndef IMAGEPIPE_HOST_H
#define IMAGEPIPE_HOST_H

#include <stddef.h>
#include <stdint.h>
#include "image.h"
#include "status.h"
#include "export.h"

IP_EXTERN_C_BEGIN

/* Opaque to plugins: one request in flight. Valid until the plugin function it was passed to returns. */
typedef struct ip_call ip_call;

typedef int32_t ip_log_level;
#define IP_LOG_DEBUG 0
#define IP_LOG_INFO 1
#define IP_LOG_WARNING 2
#define IP_LOG_ERROR 3

typedef struct ip_host {
    uint32_t struct_size;
    uint32_t abi_major;
    uint32_t abi_minor;
    /* Host name and version, e.g. "imagepipe" / "0.1.0". Static strings. */
    const char *name;
    const char *version;

    /* Allocates a zeroed pixel buffer for width x height in `format` and fills image->width, height, stride,
     * format and pixels (other fields are left to the plugin). Checks the call's limits first.
     * Returns OK, LIMIT_EXCEEDED (nothing allocated) or NO_MEMORY. The host owns the buffer: on OK the plugin
     * hands it back inside its result, and buffers of a call that the result does not reference are freed by
     * the host when the call ends, so error paths need not free. [thread-safe] */
    ip_status (*alloc_pixels)(const ip_call *call, uint32_t width, uint32_t height, ip_pixel_format format,
                              ip_image *image);

    /* Releases a buffer from alloc_pixels early (a plugin that allocated a scratch image). NULL is ignored.
     * [thread-safe] */
    void (*free_pixels)(const ip_call *call, uint8_t *pixels);

    /* Non-zero once the caller has cancelled this call. Cheap; poll it between rows, tiles or frames and
     * return IP_STATUS_CANCELLED. call may be NULL (returns 0). [thread-safe] */
    int32_t (*is_cancelled)(const ip_call *call);

    /* Writes one line to the host's log. plugin_id and message are borrowed. [thread-safe] */
    void (*log)(ip_log_level level, const char *plugin_id, const char *message);

    /* Allocates size bytes (not zeroed) for data a result points to, such as an ICC profile, under the call's
     * memory budget; NULL when refused or when size is 0 or over 64 MiB. Same ownership rule as alloc_pixels:
     * what the result does not reference is freed when the call ends. Check struct_size before calling: hosts
     * older than the colour addition do not have it. [thread-safe] */
    uint8_t *(*alloc_bytes)(const ip_call *call, size_t size);
} ip_host;

/* Where an encoder writes its output. The host owns the sink and the bytes. */
typedef struct ip_byte_sink {
    uint32_t struct_size;
    void *context;
    /* Appends size bytes; returns OK, LIMIT_EXCEEDED or NO_MEMORY (then stop and return that status).
     * data is borrowed. [caller-thread] */
    ip_status (*write)(void *context, const uint8_t *data, size_t size);
} ip_byte_sink;

IP_EXTERN_C_END

#endif
