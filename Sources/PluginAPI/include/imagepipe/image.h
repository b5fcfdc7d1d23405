/* imagepipe plugin ABI — images, frames and image information.
 *
 * Pixel memory is always allocated by the host (ip_host.alloc_pixels) so the host's limits and accounting
 * apply and the host can wrap the buffer without copying. Rows are top to bottom, orientation already applied.
 */
#ifndef IMAGEPIPE_IMAGE_H
#define IMAGEPIPE_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include "export.h"

IP_EXTERN_C_BEGIN

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

/* Colour facts (ip_image.color_flags, ip_image_info.color_flags): which ones the source states. With none set
 * the source says nothing and the host reads the pixels as sRGB. A coder reports what the file says and leaves
 * the pixels in the source's space; the host converts (Little CMS) in its finishing step.
 * Precedence when several are set, as in ISO/IEC 23008-12 and the PNG spec: ICC, then CICP, then SRGB, then
 * GAMMA/CHROMATICITIES. */
/* icc_profile / icc_size hold an embedded ICC profile (JPEG APP2, PNG iCCP, WebP ICCP, AVIF/HEIF colr prof/rICC). */
#define IP_COLOR_ICC (1u << 0)
/* cicp_* hold ITU-T H.273 code points (AVIF/HEIF colr nclx). The pixels are already RGB: matrix and range are
 * facts about the coded data, for `info` and for encoders that write them back. */
#define IP_COLOR_CICP (1u << 1)
/* The source declares sRGB (PNG sRGB chunk). */
#define IP_COLOR_SRGB (1u << 2)
/* gamma holds the encoding gamma x 100000 (PNG gAMA: 45455 means 1/2.2). */
#define IP_COLOR_GAMMA (1u << 3)
/* chromaticities hold white x, y, red x, y, green x, y, blue x, y, each x 100000 (PNG cHRM). */
#define IP_COLOR_CHROMATICITIES (1u << 4)

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
    /* Colour (IP_COLOR_* bits; all fields zero = not stated, read as sRGB).
     * decode: icc_profile comes from ip_host.alloc_bytes and passes to the host with the pixels.
     * encode: the host sets the facts the output should carry (borrowed); an encoder embeds the ICC profile or
     * writes the CICP values where its format can hold them and ignores the rest. */
    uint32_t color_flags;
    uint32_t icc_size;
    uint8_t *icc_profile;
    uint16_t cicp_primaries;
    uint16_t cicp_transfer;
    uint16_t cicp_matrix;
    /* 1 = full range, 0 = limited (studio) range. */
    uint16_t cicp_full_range;
    uint32_t gamma;
    uint32_t chromaticities[8];
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
    /* Colour, as in ip_image (icc_profile from ip_host.alloc_bytes, host-owned on OK). */
    uint32_t color_flags;
    uint32_t icc_size;
    uint8_t *icc_profile;
    uint16_t cicp_primaries;
    uint16_t cicp_transfer;
    uint16_t cicp_matrix;
    uint16_t cicp_full_range;
    uint32_t gamma;
    uint32_t chromaticities[8];
    /* ABI 1.1: the metadata blocks the file carries, for `info` (each from ip_host.alloc_bytes and host-owned on
     * OK; NULL and 0 when absent or not read). exif: the TIFF-structured Exif block from its byte-order mark
     * ("II*\0" or "MM\0*"), without its container's prefix (JPEG's "Exif\0\0", HEIF's offset word, PNG's eXIf is
     * already bare). xmp: the XMP packet as stored (UTF-8 XML). A coder copies them as found: the host reads them
     * (bounds-checked) and decides what to report. */
    uint32_t exif_size;
    uint32_t xmp_size;
    uint8_t *exif;
    uint8_t *xmp;
} ip_image_info;

IP_EXTERN_C_END

#endif
