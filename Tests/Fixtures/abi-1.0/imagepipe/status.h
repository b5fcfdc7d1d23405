/* imagepipe plugin ABI — status codes and messages.
 *
 * Every call that can fail returns an ip_status and, on failure, writes a human-readable, NUL-terminated
 * UTF-8 message into a caller-provided buffer (ip_message). The host maps each status 1:1 onto its Swift
 * error enum, so a plugin must never return a code outside this list.
 *
 * Unknown codes: a host that receives a status it does not know (a bug, or a code a later minor adds) treats it
 * as IP_STATUS_INTERNAL — a failure of that call, reported with the plugin's message — never as success. So a
 * later minor may add statuses only for situations an older host may safely see as a failure.
 */
#ifndef IMAGEPIPE_STATUS_H
#define IMAGEPIPE_STATUS_H

#include <stddef.h>
#include <stdint.h>
#include "export.h"

IP_EXTERN_C_BEGIN

typedef int32_t ip_status;

#define IP_STATUS_OK 0
/* Not enough bytes yet (incremental decoding, sniffing): call again with more. */
#define IP_STATUS_NEED_MORE 1
/* Valid input this plugin does not handle (a feature, a bit depth, a compression, a URL scheme). */
#define IP_STATUS_UNSUPPORTED 2
/* Corrupt or malformed input. */
#define IP_STATUS_INVALID_DATA 3
/* Input ends before the format says it should. */
#define IP_STATUS_TRUNCATED 4
/* A limit from ip_limits (pixels, dimension, frames, bytes) would be exceeded. */
#define IP_STATUS_LIMIT_EXCEEDED 5
/* The host's cancellation token fired. */
#define IP_STATUS_CANCELLED 6
/* Reading or writing outside the input buffer failed (loaders, caches, encoders' sinks). */
#define IP_STATUS_IO 7
/* An allocation failed. */
#define IP_STATUS_NO_MEMORY 8
/* A bug or an unexpected library state inside the plugin. */
#define IP_STATUS_INTERNAL 9
/* The thing asked for does not exist: a page, a frame, a cache key, a file. */
#define IP_STATUS_NOT_FOUND 10
/* An iteration (frames) has no more items. Not an error. */
#define IP_STATUS_END 11
/* Refused by a policy the host set on the request (a load's address policy): the source may be fine, but this
 * request may not reach it. Hosts report it as a refusal (HTTP 403), not as a failure of the source. */
#define IP_STATUS_REFUSED 12

/* A caller-owned buffer a plugin writes its error message into.
 * Frozen as it is and passed by value, so it has no struct_size: a by-value struct cannot grow without
 * changing every call that passes it, and a message buffer needs nothing more than where and how much.
 * The plugin writes at most `capacity` bytes including the NUL; it may leave the buffer untouched on
 * success. `buffer` is NULL only when `capacity` is 0. */
typedef struct ip_message {
    char *buffer;
    size_t capacity;
} ip_message;

IP_EXTERN_C_END

#endif
