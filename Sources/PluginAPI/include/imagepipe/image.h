/* imagepipe plugin ABI — images, frames and image information.
 *
 * Pixel memory is always allocated by the host (ip_host.alloc_pixels) so the host's limits and accounting
 * apply and the host can wrap the buffer without copying. Rows are top to bottom, orientation already applied.
 */
#ifndef IMAGEPIPE_IMAGE_H
#define IMAGEPIPE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

typedef int32_t ip_pixel_format;
/* 4 bytes per pixel: R, G, B, A in memory order. */
#define IP_PIXEL_RGBA8 1
/* 8 bytes per pixel: R, G, B, A as native-endian uint16 in memory order, full 0..65535 range. */
#define IP_PIXEL_RGBA16 2

typedef int32_t ip_alpha_mode;
/* Every alpha value is the maximum; the image has no transparency. */
#define IP_ALPHA_NONE 0
/* Colour channels are independent of alpha. */
#define IP_ALPHA_STRAIGHT 1
/* Colour channels are already multiplied by alpha (each channel <= alpha). */
#define IP_ALPHA_PREMULTIPLIED 2

/* A decoded bitmap: one still image, one page or one composited animation frame (always the full canvas). */
typedef struct ip_image {
    uint32_t struct_size;
    uint32_t width;
    uint32_t height;
    /* Bytes from one row to the next; at least width * bytes per pixel. */
    uint32_t stride;
    ip_pixel_format format;
    ip_alpha_mode alpha_mode;
    /* Host-allocated (ip_host.alloc_pixels); ownership passes to the host when the call returns OK. */
    uint8_t *pixels;
    /* Display duration of this frame in milliseconds; 0 for still images. */
    uint32_t duration_ms;
    /* Index of this frame or page inside its source. */
    uint32_t index;
} ip_image;

/* Facts about a source, read without decoding its pixels (probe). Fields a coder cannot know stay 0. */
typedef struct ip_image_info {
    uint32_t struct_size;
    /* Display size: intrinsic size for vectors (at 96 dpi for SVG, 72 dpi for PDF), orientation applied. */
    uint32_t width;
    uint32_t height;
    /* Animation frames (1 for a still image); 0 when unknown without decoding every frame. */
    uint32_t frame_count;
    /* Pages for multipage documents; 1 otherwise. */
    uint32_t page_count;
    /* Animation loop count: 0 = infinite, N = play N times; -1 = not stated by the file. */
    int32_t loop_count;
    /* Bits per channel in the source (1..16). */
    uint32_t bit_depth;
    /* Non-zero when the source has an alpha channel or transparency. */
    uint32_t has_alpha;
    /* Short lower-case format name, e.g. "png", written by the coder. */
    char format[32];
    /* One line of coder-specific facts for people ("interlaced, palette, tRNS"). */
    char details[256];
} ip_image_info;

#endif
