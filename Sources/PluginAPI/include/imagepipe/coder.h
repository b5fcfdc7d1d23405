/* imagepipe plugin ABI — coders (decoders and encoders of one image format).
 *
 * Factory ID "org.imagepipe.coders/1": get_factory returns a const ip_coder_factory *.
 * Everything the host needs to route a request (formats, MIME types, extensions, magic patterns, capabilities,
 * priority) is static data in ip_coder_descriptor, so the host can choose a coder without calling into it.
 */
#ifndef IMAGEPIPE_CODER_H
#define IMAGEPIPE_CODER_H

#include <stddef.h>
#include <stdint.h>
#include "host.h"
#include "image.h"
#include "options.h"
#include "status.h"
#include "export.h"

IP_EXTERN_C_BEGIN

#define IP_CODER_FACTORY_ID "org.imagepipe.coders/1"

/* Capability flags (ip_coder_descriptor.capabilities). The first four say which slots are filled, as static
 * data the host routes by before calling anything; they are checked, not trusted: the host refuses a coder that
 * claims one whose slots are empty (CAN_DECODE: probe + decode, CAN_ENCODE: encode, ANIMATED: frames_open/next/
 * close, INCREMENTAL: incremental_open/update/close), and never calls a filled slot whose bit is not set. */
#define IP_CODER_CAN_DECODE (1ull << 0)
#define IP_CODER_CAN_ENCODE (1ull << 1)
#define IP_CODER_ANIMATED (1ull << 2)
#define IP_CODER_INCREMENTAL (1ull << 3)
#define IP_CODER_VECTOR (1ull << 4)
#define IP_CODER_MULTIPAGE (1ull << 5)
/* Decodes at (or near) a requested size faster than a full decode (shrink-on-load, render at size). */
#define IP_CODER_FAST_THUMBNAIL (1ull << 6)
/* decode/probe/frames/encode may run concurrently on several threads. Without it the host serialises calls. */
#define IP_CODER_THREAD_SAFE (1ull << 7)
/* Bit 8 is retired: a coder that applies the tint lists IP_DECODE_EXTENSION_TINT in decode_extensions. */
/* Honours thumbnail_width/height itself; otherwise the host resamples the full-size result. */
#define IP_CODER_SCALES (1ull << 9)
/* The coder's library is known to crash or hang on hostile input: the host should isolate it when it can. */
#define IP_CODER_RECOMMENDS_ISOLATION (1ull << 10)
/* ABI 1.1: converts whole files between formats without going through pixels (ip_coder.transcode, for the pairs
 * listed in ip_coder_descriptor.transcodes). */
#define IP_CODER_TRANSCODES (1ull << 11)

/* Magic pattern flags. */
/* A match is only a candidate: the host confirms it with the coder's sniff() before choosing it. */
#define IP_MAGIC_CONFIRM_WITH_SNIFF (1u << 0)

/* `length` bytes starting at `offset` (or, with search_range > 0, at any start in offset..offset+search_range)
 * must equal `bytes` under `mask` (NULL mask = every bit counts). A pattern of length 0 matches anything (use it
 * with IP_MAGIC_CONFIRM_WITH_SNIFF for text formats, as a last resort: it makes the host open the plugin).
 * Rationale for search_range: formats such as PDF ("%PDF-" anywhere in the first 1024 bytes) and SVG ("<svg"
 * after a prolog) can then be routed from static data, without loading the plugin to sniff. */
typedef struct ip_magic_pattern {
    uint32_t struct_size;
    uint32_t offset;
    uint32_t length;
    const uint8_t *bytes;
    const uint8_t *mask;
    /* 1..100: how sure a match makes the host. Higher relevance wins before priority. */
    uint32_t relevance;
    uint32_t flags;
    /* 0 = the bytes must start exactly at offset; N = they may start anywhere up to offset + N (at most 65536). */
    uint32_t search_range;
} ip_magic_pattern;

typedef struct ip_coder_descriptor {
    uint32_t struct_size;
    /* Reverse-DNS ID with revision, e.g. "org.imagepipe.coder.png/1". Unique among loaded coders. */
    const char *id;
    const char *name;
    const char *version;
    /* Short lower-case format name: "png", "avif". */
    const char *format;
    /* NULL-terminated lists; may be empty but not NULL. */
    const char *const *mime_types;
    const char *const *extensions;
    uint64_t capabilities;
    /* Tie-breaker between coders matching with the same relevance; higher wins; default 100. */
    int32_t priority;
    uint32_t pattern_count;
    /* pattern_count pointers to static patterns (pointers, so that ip_magic_pattern may grow). */
    const ip_magic_pattern *const *patterns;
    /* How many leading bytes sniff() wants to see (it still must cope with fewer). */
    uint32_t sniff_bytes;
    /* NULL-terminated IDs of the decode extensions this coder honours (decode_extensions.h), or NULL for none. */
    const char *const *decode_extensions;
    /* ---- ABI 1.1 ----
     * NULL-terminated "from>to" pairs of format names (lower case, as `format`) that the transcode slot converts
     * between without pixels, or NULL for none; required (non-empty) with IP_CODER_TRANSCODES. "jpeg>jxl": a JPEG
     * stored losslessly as JPEG XL (its DCT coefficients kept); "jxl>jpeg": the original JPEG given back from a JPEG
     * XL file's reconstruction data. Either side's coder may list a pair. */
    const char *const *transcodes;
} ip_coder_descriptor;

/* A decode request. Everything is borrowed for the duration of the call (for frames_open: until frames_close). */
typedef struct ip_decode_request {
    uint32_t struct_size;
    const uint8_t *data;
    size_t size;
    const ip_decode_options *options;
    const ip_call *call;
} ip_decode_request;

/* ABI 1.1: "the source's own bytes in another container" — one file converted to another format without decoding
 * it to pixels, so nothing of it is lost (see ip_coder.transcode). Everything is borrowed for the call. */
typedef struct ip_transcode_request {
    uint32_t struct_size;
    /* The whole source file. */
    const uint8_t *data;
    size_t size;
    /* The pair being asked for: one of the descriptor's `transcodes`, split at '>'. */
    const char *source_format;
    const char *target_format;
    /* Speed and quality hints for an encoding side (quality is meaningless for a lossless transcode). */
    const ip_encode_options *options;
    const ip_call *call;
} ip_transcode_request;

/* Opaque per-plugin session types. */
typedef struct ip_frame_iterator ip_frame_iterator;
typedef struct ip_incremental_decoder ip_incremental_decoder;

typedef struct ip_coder {
    uint32_t struct_size;
    /* Static; never NULL. */
    const ip_coder_descriptor *descriptor;

    /* Confirms that data (the first bytes of a source, possibly fewer than sniff_bytes) is this format.
     * Returns OK (yes), UNSUPPORTED (no) or NEED_MORE (cannot tell from so few bytes). Must not allocate
     * beyond a small constant and must not read past size. NULL when no pattern asks for confirmation.
     * [thread-safe] */
    ip_status (*sniff)(const uint8_t *data, size_t size);

    /* Reads the facts of the source without decoding pixels. On OK, *info is filled (struct_size set by the
     * host). [thread-safe if IP_CODER_THREAD_SAFE, else host-serialised] */
    ip_status (*probe)(const ip_decode_request *request, ip_image_info *info, ip_message message);

    /* Decodes one image: the page options->page_index, or the frame options->frame_index (composited),
     * at the requested size when IP_CODER_SCALES is set (else at full size). On OK, *image holds a buffer
     * from alloc_pixels, which the host then owns. [thread-safe if IP_CODER_THREAD_SAFE, else host-serialised] */
    ip_status (*decode)(const ip_decode_request *request, ip_image *image, ip_message message);

    /* Animation, one frame at a time so that long animations are never all in memory.
     * frames_open: the request and all it points to (data, options, extensions, call) stay valid until
     * frames_close. *iterator is plugin-owned.
     * frames_next: writes the next composited frame (host-owned pixels) and returns OK, or END after the last.
     * frames_close: releases the iterator; NULL is ignored.
     * NULL slots when the coder is not IP_CODER_ANIMATED. [one thread at a time per iterator] */
    ip_status (*frames_open)(const ip_decode_request *request, ip_frame_iterator **iterator, ip_message message);
    ip_status (*frames_next)(ip_frame_iterator *iterator, const ip_call *call, ip_image *frame, ip_message message);
    void (*frames_close)(ip_frame_iterator *iterator);

    /* Incremental (progressive) decoding while bytes arrive.
     * incremental_open: options (and all they point to) are copied or used only during the call; there is no
     * call here (each incremental_update gets its own); *decoder is plugin-owned until incremental_close.
     * incremental_update: data/size are ALL bytes received so far (the host keeps them); is_final non-zero when
     * nothing more will come. Returns OK with a preview (or, when final, the finished image) in *image,
     * NEED_MORE when no preview can be drawn yet, or an error.
     * incremental_close: releases the decoder; NULL is ignored.
     * NULL slots when the coder is not IP_CODER_INCREMENTAL. [one thread at a time per decoder] */
    ip_status (*incremental_open)(const ip_decode_options *options, ip_incremental_decoder **decoder,
                                  ip_message message);
    ip_status (*incremental_update)(ip_incremental_decoder *decoder, const uint8_t *data, size_t size,
                                    int32_t is_final, const ip_call *call, ip_image *image, ip_message message);
    void (*incremental_close)(ip_incremental_decoder *decoder);

    /* Encodes frame_count images (1 for a still image) into sink: an array of pointers, so that ip_image may
     * grow. Images are borrowed. NULL when the coder is not IP_CODER_CAN_ENCODE.
     * [thread-safe if IP_CODER_THREAD_SAFE, else host-serialised] */
    ip_status (*encode)(const ip_image *const *frames, uint32_t frame_count, const ip_encode_options *options,
                        const ip_call *call, const ip_byte_sink *sink, ip_message message);

    /* ---- ABI 1.1: the same six slots, each told which coder it serves ----
     * Each takes as its first argument the coder table the host reached it through (the very pointer the plugin's
     * factory listed), as CLAP's slots take `const clap_plugin *`. One C function can then serve several coders, and a
     * language binding finds its object from the pointer instead of generating one entry point per coder.
     * Rule: a host that speaks 1.1 calls a "2" slot when it is non-NULL and the 1.0 slot of the same name otherwise
     * (never both for one call); a filled "2" slot satisfies its capability bit as the 1.0 slot does. A plugin that
     * fills only "2" slots must refuse a 1.0 host in init(), because a 1.0 host finds its 1.0 slots empty.
     * Contracts, ownership and thread tags are those of the 1.0 slot of the same name. */
    ip_status (*sniff2)(const struct ip_coder *coder, const uint8_t *data, size_t size);
    ip_status (*probe2)(const struct ip_coder *coder, const ip_decode_request *request, ip_image_info *info,
                        ip_message message);
    ip_status (*decode2)(const struct ip_coder *coder, const ip_decode_request *request, ip_image *image,
                         ip_message message);
    ip_status (*frames_open2)(const struct ip_coder *coder, const ip_decode_request *request,
                              ip_frame_iterator **iterator, ip_message message);
    ip_status (*incremental_open2)(const struct ip_coder *coder, const ip_decode_options *options,
                                   ip_incremental_decoder **decoder, ip_message message);
    ip_status (*encode2)(const struct ip_coder *coder, const ip_image *const *frames, uint32_t frame_count,
                         const ip_encode_options *options, const ip_call *call, const ip_byte_sink *sink,
                         ip_message message);
    /* ---- ABI 1.1: transcoding ----
     * Writes request->data, converted from source_format to target_format without pixels, into sink. Returns OK;
     * UNSUPPORTED when this particular file cannot be converted that way (a JPEG XL file without JPEG reconstruction
     * data, a JPEG the target cannot store losslessly), with the reason in message: the host then decodes and encodes
     * instead, or fails if the caller asked for the lossless conversion; any other status for bad input. Output
     * written before a failure is discarded by the host.
     * NULL without IP_CODER_TRANSCODES. [thread-safe if IP_CODER_THREAD_SAFE, else host-serialised] */
    ip_status (*transcode)(const struct ip_coder *coder, const ip_transcode_request *request, const ip_byte_sink *sink,
                           ip_message message);
} ip_coder;

typedef struct ip_coder_factory {
    uint32_t struct_size;
    uint32_t coder_count;
    /* coder_count static coders. */
    const ip_coder *const *coders;
} ip_coder_factory;

IP_EXTERN_C_END

#endif
