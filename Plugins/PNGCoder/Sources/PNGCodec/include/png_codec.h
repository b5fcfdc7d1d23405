/* PNGCodec — the only code of the PNG plugin that calls libpng (and libdeflate, for non-interlaced writing).
 *
 * Rationale: libpng reports errors by longjmp, and a longjmp must never cross a Swift frame (Swift does not
 * run its cleanups or release its references when a frame is skipped). So every libpng call, and the setjmp
 * that catches its errors, lives in these C functions. They return an ip_status and write a message; callbacks
 * into the host (the byte sink, the cancellation check) return before any error is raised, so no longjmp ever
 * passes through their frames either.
 *
 * Every function is reentrant: each call creates its own png_struct, so calls may run on several threads at once.
 */
#ifndef PNG_CODEC_H
#define PNG_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include <imagepipe/imagepipe.h>

/* PNG colour types, with the values of the PNG specification. */
#define PNGC_COLOR_GRAY 0
#define PNGC_COLOR_RGB 2
#define PNGC_COLOR_PALETTE 3
#define PNGC_COLOR_GRAY_ALPHA 4
#define PNGC_COLOR_RGBA 6

/* Facts from a PNG's header chunks (IHDR, PLTE, tRNS), read without decoding any pixel. */
typedef struct pngc_info {
    uint32_t width;
    uint32_t height;
    /* Bits per sample as stored: 1, 2, 4, 8 or 16 (for a palette image, bits per index). */
    int32_t bit_depth;
    /* One of PNGC_COLOR_*. */
    int32_t color_type;
    /* Non-zero for Adam7 interlacing. */
    int32_t interlaced;
    /* Non-zero when a tRNS chunk gives a transparent colour or palette alphas. */
    int32_t has_trns;
    /* Colour chunks before the image data, as IP_COLOR_* bits with the values the ABI uses: iCCP (the profile,
     * inflated by libpng within its chunk size limit, malloc'd: release with pngc_info_release), sRGB, gAMA
     * (x 100000) and cHRM (x 100000: white, red, green, blue, each x then y). A chunk libpng finds invalid is
     * left out, as libpng itself does. */
    uint32_t color_flags;
    uint8_t *icc_profile;
    uint32_t icc_size;
    uint32_t gamma;
    uint32_t chromaticities[8];
} pngc_info;

/* Frees the profile a probe copied; the struct may then be probed again. NULL is ignored. */
void pngc_info_release(pngc_info *info);

/* Returns non-zero once the caller wants the work to stop. Called between rows, never inside libpng. */
typedef int32_t (*pngc_cancel_fn)(void *context);

/* A PNG read by ranges instead of held in memory (the host's IP_DECODE_EXTENSION_SOURCE): `size` bytes, read with
 * read_at (pread's contract: the count copied, 0 at the end, -1 on an error). Where a function takes one, data and
 * size hold only the source's first bytes (the signature at least), and every byte libpng asks for is read through
 * read_at at its offset: a 200 MB file is never copied whole. NULL: data[0..size) is the whole PNG. */
typedef int64_t (*pngc_read_at_fn)(void *context, uint64_t offset, void *buffer, size_t length);
typedef struct pngc_ranged {
    uint64_t size;
    pngc_read_at_fn read_at;
    void *context;
} pngc_ranged;

/* Reads the header of the PNG in data[0..size) (or `ranged`, when not NULL) into *info. Allocates only libpng's small structs.
 * Returns OK, TRUNCATED, INVALID_DATA or NO_MEMORY with a message. [thread-safe] */
ip_status pngc_probe(const uint8_t *data, size_t size, const pngc_ranged *ranged, pngc_info *info, ip_message message);

/* The smallest number of bytes a valid PNG of this header can have: deflate expands at most ~1032:1, so a
 * header that claims more pixels than its file could ever hold is detected before anything is allocated. */
uint64_t pngc_minimum_file_size(const pngc_info *info);

/* Decodes the PNG in data[0..size) as RGBA (straight alpha; opaque when the PNG has no alpha and no tRNS) into
 * pixels, one row every `stride` bytes: 8 bits per channel, or native-endian 16 bits when output16 is non-zero.
 * `expected` is the header a previous pngc_probe returned for the same bytes (the buffer was sized from it).
 * cancelled may be NULL. Returns OK, TRUNCATED, INVALID_DATA, CANCELLED, NO_MEMORY or INTERNAL; on an error
 * the rows already written are left as they are. [thread-safe] */
ip_status pngc_decode(const uint8_t *data, size_t size, const pngc_ranged *ranged, const pngc_info *expected, int32_t output16,
                      uint8_t *pixels, size_t stride, pngc_cancel_fn cancelled, void *cancel_context,
                      ip_message message);

struct bxs_shrinker;

/* As pngc_decode, but every row goes through `reduce` (BoxShrink, made for this header's size and the same
 * output16) instead of into a full-size buffer: the shrinker's output is then the reduced image. Only one row of
 * the full size is ever held. Non-interlaced PNGs only (an Adam7 pass revisits every row: INTERNAL otherwise).
 * [thread-safe] */
ip_status pngc_decode_reduced(const uint8_t *data, size_t size, const pngc_ranged *ranged, const pngc_info *expected, int32_t output16,
                              struct bxs_shrinker *reduce, pngc_cancel_fn cancelled, void *cancel_context,
                              ip_message message);

/* What to write and how. Everything is borrowed for the duration of pngc_encode. */
typedef struct pngc_encode_params {
    /* Source rows: RGBA, 8 bits per channel, or native-endian 16 bits when input16 is non-zero. */
    const uint8_t *pixels;
    uint32_t width;
    uint32_t height;
    size_t stride;
    int32_t input16;
    /* Non-zero when the source colours are premultiplied by alpha: they are divided back before writing. */
    int32_t premultiplied;
    /* Non-zero to write RGBA; zero to write RGB and drop the alpha channel. */
    int32_t write_alpha;
    /* Non-zero for 16 bits per sample, else 8. */
    int32_t output16;
    /* zlib level 0..9: used by the interlaced (libpng) path only. */
    int32_t compression_level;
    /* Non-zero to use only the Sub filter (fast) instead of the adaptive per-row choice. */
    int32_t fast_filters;
    /* Non-zero to write Adam7 interlaced rows (through libpng); zero for the libdeflate writer. */
    int32_t interlace;
    /* The caller's speed, 0 (default) or 1 (slowest, smallest) ... 10 (fastest): the non-interlaced writer maps it
     * onto a libdeflate level (see pngc_deflate_level). */
    int32_t speed;
    /* An ICC profile to embed as iCCP (named "ICC profile"), or NULL. */
    const uint8_t *icc_profile;
    uint32_t icc_size;
    /* An eXIf chunk's data (a bare TIFF-structured Exif block) and an iTXt chunk's data (keyword, flags, language,
     * translated keyword and text, made by the caller), each written before the image data when not NULL. */
    const uint8_t *exif;
    uint32_t exif_size;
    const uint8_t *itxt;
    uint32_t itxt_size;
    /* Receives the encoded bytes. */
    const ip_byte_sink *sink;
    pngc_cancel_fn cancelled;
    void *cancel_context;
} pngc_encode_params;

/* Encodes one image as PNG into params->sink. Returns OK, the sink's status (LIMIT_EXCEEDED, NO_MEMORY),
 * CANCELLED, INVALID_DATA (bad parameters), NO_MEMORY or INTERNAL with a message. [thread-safe] */
ip_status pngc_encode(const pngc_encode_params *params, ip_message message);

#endif
