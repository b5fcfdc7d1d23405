/* imagepipe plugin ABI — decode and encode options, limits.
 *
 * Options are a versioned struct, never a key/value list: a plugin reads the fields its struct_size covers
 * and treats the rest as their documented defaults (all zero). Sub-structs are reached through pointers, each
 * with its own struct_size, so any of them may grow on its own.
 */
#ifndef IMAGEPIPE_OPTIONS_H
#define IMAGEPIPE_OPTIONS_H

#include <stdint.h>
#include "export.h"

IP_EXTERN_C_BEGIN

typedef int32_t ip_scale_mode;
/* Keep the aspect ratio, fit inside the box (SDWebImage's "preserve aspect ratio"). The default. */
#define IP_SCALE_FIT 0
/* Stretch to exactly the box. */
#define IP_SCALE_FILL 1
/* Keep the aspect ratio, cover the box, crop the overflow centred. */
#define IP_SCALE_ASPECT_FILL 2

/* Decode flags (ip_decode_options.flags). */
/* Decode only the first frame of an animation; frame_count in the result may then be 1. */
#define IP_DECODE_FIRST_FRAME_ONLY (1u << 0)
/* Bit 1 is retired (template rendering is the tint extension, decode_extensions.h). */
/* Allow an output larger than the intrinsic size for fit and aspect-fill. */
#define IP_DECODE_ALLOW_UPSCALE (1u << 2)
/* Produce IP_PIXEL_RGBA16 when the source has more than 8 bits per channel. */
#define IP_DECODE_HIGH_BIT_DEPTH (1u << 3)
/* Documents (PDF): leave the page background transparent instead of white. */
#define IP_DECODE_TRANSPARENT_BACKGROUND (1u << 4)
/* Do not apply orientation metadata (EXIF, irot/imir); the default is to apply it. */
#define IP_DECODE_IGNORE_ORIENTATION (1u << 5)
/* Bit 6 is retired (the tint is the tint extension, decode_extensions.h). */

/* Limits a plugin must honour before allocating. 0 means "no limit from the host" for that field. */
typedef struct ip_limits {
    uint32_t struct_size;
    /* Output (and intermediate full-size) pixels: width * height. */
    uint64_t max_pixels;
    /* Largest width or height. */
    uint32_t max_dimension;
    /* Animation frames a decode may produce or iterate over. */
    uint32_t max_frames;
    /* Input bytes a coder accepts, or a loader downloads. */
    uint64_t max_input_bytes;
} ip_limits;

/* The head of every named decode extension (decode_extensions.h). Policy that only some coders take part in —
 * template tint, a document's password — travels as a named extension rather than as fields every coder must
 * know: a coder reads the extensions whose IDs it lists in its descriptor and skips the rest. Frozen: it never
 * grows; struct_size is the size of the whole extension struct it heads. */
typedef struct ip_decode_extension {
    uint32_t struct_size;
    /* Versioned ID, e.g. "org.imagepipe.decode.tint/1". Static. */
    const char *id;
    /* The next extension, or NULL. */
    const struct ip_decode_extension *next;
} ip_decode_extension;

typedef struct ip_decode_options {
    uint32_t struct_size;
    /* Requested output box in pixels; 0 x 0 = intrinsic size; one side 0 = derived from the other. */
    uint32_t thumbnail_width;
    uint32_t thumbnail_height;
    ip_scale_mode scale_mode;
    /* IP_DECODE_* bits. */
    uint32_t flags;
    /* 0-based page of a multipage document. */
    uint32_t page_index;
    /* 0-based frame of an animation, for decode(). */
    uint32_t frame_index;
    /* Decoder threads the coder may use; 0 = the coder's default (usually all cores). */
    uint32_t threads;
    /* The limits of this request; NULL = no limits from the host. A pointer, not an embedded struct, so that
     * ip_limits can grow without moving the fields after it. */
    const ip_limits *limits;
    /* Where the bytes came from, as a URL (file:///abs/path for local files), or NULL when unknown.
     * A hint only: vector coders use a file: URL as the base for relative resources and must not read
     * anything for any other value. Borrowed for the duration of the call. */
    const char *source_url;
    /* Named extensions (a list), or NULL. Borrowed as the options are. */
    const ip_decode_extension *extensions;
} ip_decode_options;

/* Encode flags (ip_encode_options.flags). */
#define IP_ENCODE_LOSSLESS (1u << 0)
#define IP_ENCODE_PROGRESSIVE (1u << 1)

typedef struct ip_encode_options {
    uint32_t struct_size;
    /* 1..100; 0 = the coder's default. */
    uint32_t quality;
    /* 0..10, higher is faster; 0 = the coder's default. */
    uint32_t speed;
    /* Bits per channel of the output (8, 10, 12, 16); 0 = from the input image. */
    uint32_t bit_depth;
    /* IP_ENCODE_* bits. */
    uint32_t flags;
    /* Animation loop count for animated output: 0 = infinite. */
    uint32_t loop_count;
    /* ---- ABI 1.1 ----
     * NULL, or "key=value" lines of settings the format's encoder documents (TIFF's compression=lzw|deflate|none,
     * say): the user's words for what the portable fields above cannot say. An encoder refuses a key it does not
     * know with UNSUPPORTED naming it, so a misspelt setting is never silently ignored (an encoder built for 1.0
     * cannot see the field and ignores it). Borrowed for the call. */
    const char *settings;
    /* ---- ABI 1.1 (metadata) ----
     * The metadata blocks to embed, as the host's metadata policy left them (`--keep-metadata`, `kmd:`): NULL and 0
     * when none (the default: outputs carry no Exif or XMP). exif: a TIFF-structured block from its byte-order mark
     * (the encoder adds its container's prefix: JPEG's "Exif\0\0", HEIF's offset word); its Orientation already says
     * 1, since the pixels have it applied. xmp: an XMP packet (UTF-8 XML). An encoder whose format has a place for
     * them writes them as given; one that has none (GIF) ignores them, and says so in its descriptor's doc. Borrowed
     * for the call. */
    uint32_t exif_size;
    uint32_t xmp_size;
    const uint8_t *exif;
    const uint8_t *xmp;
} ip_encode_options;

IP_EXTERN_C_END

#endif
