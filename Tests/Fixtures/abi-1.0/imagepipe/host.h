/* imagepipe plugin ABI — services the host offers to plugins.
 *
 * The host passes one ip_host to init(), the plugin's own; it stays valid for the life of the process. Per-call
 * state (limits, allocation accounting, cancellation) lives behind an opaque ip_call handle that the host passes
 * in every request; plugins hand it back to the services below and never look inside.
 */
#ifndef IMAGEPIPE_HOST_H
#define IMAGEPIPE_HOST_H

#include <stddef.h>
#include <stdint.h>
#include "geometry.h"
#include "image.h"
#include "status.h"
#include "export.h"

IP_EXTERN_C_BEGIN

/* Opaque to plugins: one request in flight.
 * Lifetime (one rule): a call is valid for as long as the request that carries it. For a decode, probe, encode or
 * incremental_update that is until the plugin function returns; for frames_open it is until frames_close of the
 * iterator it made (the host keeps the whole request — data, options, extensions, call — alive until then). */
typedef struct ip_call ip_call;

typedef int32_t ip_log_level;
#define IP_LOG_DEBUG 0
#define IP_LOG_INFO 1
#define IP_LOG_WARNING 2
#define IP_LOG_ERROR 3

typedef struct ip_host ip_host;

/* The services of the host. Every service takes the ip_host it was reached through as its first argument, as
 * CLAP does: the host gives each plugin its own table (host_data tells them apart), so a service knows which
 * plugin calls it without trusting anything the plugin says. New services are new extensions (get_extension);
 * the slots below are frozen. */
struct ip_host {
    uint32_t struct_size;
    uint32_t abi_major;
    uint32_t abi_minor;
    /* Host name and version, e.g. "imagepipe" / "0.1.0". Static strings. */
    const char *name;
    const char *version;
    /* The host's own data for this plugin. Plugins never read or write it. */
    void *host_data;

    /* Returns a static table for a versioned host extension ID, or NULL for an ID this host does not offer
     * (always NULL for an unknown ID, never a crash). No host extensions are defined in 1.0. [thread-safe] */
    const void *(*get_extension)(const ip_host *host, const char *extension_id);

    /* Allocates a zeroed pixel buffer for width x height in `format` and fills image->width, height, stride,
     * format and pixels (other fields are left to the plugin). Checks the call's limits first.
     * Returns OK, LIMIT_EXCEEDED (nothing allocated) or NO_MEMORY. The host owns the buffer: on OK the plugin
     * hands it back inside its result, and buffers of a call that the result does not reference are freed by
     * the host when the call ends, so error paths need not free. [thread-safe] */
    ip_status (*alloc_pixels)(const ip_host *host, const ip_call *call, uint32_t width, uint32_t height,
                              ip_pixel_format format, ip_image *image);

    /* Releases a buffer from alloc_pixels early (a plugin that allocated a scratch image). NULL is ignored.
     * [thread-safe] */
    void (*free_pixels)(const ip_host *host, const ip_call *call, uint8_t *pixels);

    /* Non-zero once the caller has cancelled this call. Cheap; poll it between rows, tiles or frames and
     * return IP_STATUS_CANCELLED. call may be NULL (returns 0). [thread-safe] */
    int32_t (*is_cancelled)(const ip_host *host, const ip_call *call);

    /* Writes one line to the host's log, attributed to the plugin that owns `host`. message is borrowed.
     * [thread-safe] */
    void (*log)(const ip_host *host, ip_log_level level, const char *message);

    /* Allocates size bytes (not zeroed) for data a result points to, such as an ICC profile, under the call's
     * memory budget; NULL when refused or when size is 0 or over 64 MiB. Same ownership rule as alloc_pixels:
     * what the result does not reference is freed when the call ends. [thread-safe] */
    uint8_t *(*alloc_bytes)(const ip_host *host, const ip_call *call, size_t size);

    /* The one definition of fit / fill / aspect-fill (geometry.h): where a source of request->source_width x
     * source_height lands on the output for the requested box. A service rather than inline code, so that every
     * plugin that renders at size and the host's resampler agree, also after a fix in a later host.
     * Returns OK, or INVALID_DATA for a request without a struct_size the host knows. [thread-safe] */
    ip_status (*place)(const ip_host *host, const ip_place_request *request, ip_placement *placement);
};

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
