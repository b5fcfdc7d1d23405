/* PNGCodec: the non-interlaced PNG writer — PNG's chunk layout written directly (PNG specification, sections 5
 * and 11), rows filtered by png_filter.c, the whole image deflated by one libdeflate call.
 *
 * Rationale: libpng feeds zlib row by row; libdeflate compresses a whole buffer at about twice zlib's speed for
 * the same size, but cannot stream. So the writer holds the filtered image (height × (1 + row bytes)) and
 * libdeflate's output (at most libdeflate_zlib_compress_bound of that, a little more than its size) at once:
 * about twice the converted image, e.g. 32 MiB for a 2048×2048 RGBA8 image, on top of the caller's pixels. */
#include "png_codec_internal.h" /* pngc_message */
#include "png_encode_internal.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

/* Compressed bytes per IDAT chunk: few sink calls, yet a streaming reader gets its data in modest pieces. */
#define PNGC_IDAT_SIZE (256u * 1024u)

static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

/* speed 0 (the default) → level 7 here; the writer asks pngc_default_deflate_level instead, which keeps level 7 for
 * drawings and gives photographic rows level 5. Level 7 is the level whose size matches zlib level 6 (the libpng path's, and this
 * encoder's default before libdeflate). Measured on the same filtered rows of four renders, bytes (deflate ms):
 *   image                 zlib 6            libdeflate 6       libdeflate 7
 *   2048×1536 SVG         2194482 (170)     2204332 (65)       2163697 (112)
 *   768×1024 photo-like    708299 (144)      732073 (42)        707486 (88)
 *   1447×2048 PDF page     375757 (42)       383351 (22)        380046 (29)
 *   256×171 badge           18442 (3.4)       19241 (1.2)        17377 (2.0)
 * Level 6 is 0.5-4.3% bigger; level 7 is within -5.8..+1.1% at about 0.6× zlib's time.
 * speed 1 (slowest, smallest) → 12 (libdeflate's near-optimal parsing, many times slower) … 6 → 7 … 10 → 1. */
int pngc_deflate_level(int32_t speed) {
    static const int levels[11] = {7, 12, 11, 10, 9, 8, 7, 6, 5, 3, 1};
    return levels[speed < 0 ? 0 : speed > 10 ? 10 : speed];
}

/* One encode: everything pngc_encode_fast allocates, freed by fast_writer_free. */
typedef struct fast_writer {
    const pngc_encode_params *params;
    size_t row_size;
    /* Filtered rows, each preceded by its filter type byte: the zlib stream's uncompressed data. */
    uint8_t *filtered;
    size_t filtered_size;
    /* Converted rows (when the source rows cannot be used as they are), alternating so that the row above stays
     * valid; `zero_row` is the row above the first (the specification's "previous row" of zeros). */
    uint8_t *scratch[2];
    uint8_t *zero_row;
    struct libdeflate_compressor *compressor;
    uint8_t *compressed;
} fast_writer;

static void fast_writer_free(fast_writer *w) {
    free(w->filtered);
    free(w->scratch[0]);
    free(w->scratch[1]);
    free(w->zero_row);
    if (w->compressor != NULL) libdeflate_free_compressor(w->compressor);
    free(w->compressed);
}

static void store32(uint8_t *p, uint32_t value) {
    p[0] = (uint8_t)(value >> 24);
    p[1] = (uint8_t)(value >> 16);
    p[2] = (uint8_t)(value >> 8);
    p[3] = (uint8_t)value;
}

/* Writes one chunk (length, type, data, CRC-32 of type and data) with three sink calls. */
static ip_status write_chunk(const ip_byte_sink *sink, const char type[4], const uint8_t *data, uint32_t length) {
    uint8_t head[8], tail[4];
    store32(head, length);
    memcpy(head + 4, type, 4);
    uint32_t crc = libdeflate_crc32(0, type, 4);
    /* Not with NULL data: libdeflate_crc32 then returns the initial value 0, not crc. */
    if (length > 0) crc = libdeflate_crc32(crc, data, length);
    store32(tail, crc);
    ip_status status = sink->write(sink->context, head, sizeof head);
    if (status == IP_STATUS_OK && length > 0) status = sink->write(sink->context, data, length);
    if (status == IP_STATUS_OK) status = sink->write(sink->context, tail, sizeof tail);
    return status;
}

/* iCCP (section 11.3.2.3): the profile name, a NUL, compression method 0, the zlib-compressed profile. */
static ip_status write_iccp(const pngc_encode_params *p) {
    static const char name[] = "ICC profile";
    struct libdeflate_compressor *compressor = libdeflate_alloc_compressor(9);
    if (compressor == NULL) return IP_STATUS_NO_MEMORY;
    size_t bound = libdeflate_zlib_compress_bound(compressor, p->icc_size);
    size_t header = sizeof name + 1; /* name with its NUL, then the method byte */
    uint8_t *chunk = malloc(header + bound);
    if (chunk == NULL) {
        libdeflate_free_compressor(compressor);
        return IP_STATUS_NO_MEMORY;
    }
    memcpy(chunk, name, sizeof name);
    chunk[sizeof name] = 0;
    size_t size = libdeflate_zlib_compress(compressor, p->icc_profile, p->icc_size, chunk + header, bound);
    libdeflate_free_compressor(compressor);
    ip_status status = size == 0 || header + size > 0x7FFFFFFFu ? IP_STATUS_INTERNAL
                                                                : write_chunk(p->sink, "iCCP", chunk, (uint32_t)(header + size));
    free(chunk);
    return status;
}

/* Signature and IHDR (section 11.2.2): compression method 0, filter method 0, no interlace; iCCP, eXIf and iTXt when
 * given (all before IDAT, as the third edition asks of eXIf). */
static ip_status write_header(const pngc_encode_params *p) {
    ip_status status = p->sink->write(p->sink->context, png_signature, sizeof png_signature);
    if (status != IP_STATUS_OK) return status;
    uint8_t ihdr[13];
    store32(ihdr, p->width);
    store32(ihdr + 4, p->height);
    ihdr[8] = p->output16 ? 16 : 8;
    ihdr[9] = p->write_alpha ? PNGC_COLOR_RGBA : PNGC_COLOR_RGB;
    ihdr[10] = 0;
    ihdr[11] = 0;
    ihdr[12] = 0;
    status = write_chunk(p->sink, "IHDR", ihdr, sizeof ihdr);
    if (status == IP_STATUS_OK && p->icc_profile != NULL && p->icc_size > 0) status = write_iccp(p);
    if (status == IP_STATUS_OK && p->exif != NULL && p->exif_size > 0) status = write_chunk(p->sink, "eXIf", p->exif, p->exif_size);
    if (status == IP_STATUS_OK && p->itxt != NULL && p->itxt_size > 0) status = write_chunk(p->sink, "iTXt", p->itxt, p->itxt_size);
    return status;
}

/* Allocates the buffers of w; returns 0 with a message when memory runs out (or the sizes overflow). */
static int allocate(fast_writer *w, ip_message message) {
    const pngc_encode_params *p = w->params;
    size_t line = w->row_size + 1;
    if (line > SIZE_MAX / p->height) {
        pngc_message(message, "a %ux%u PNG is too large to hold in memory", p->width, p->height);
        return 0;
    }
    w->filtered_size = line * p->height;
    w->filtered = malloc(w->filtered_size);
    w->zero_row = calloc(1, w->row_size);
    w->scratch[0] = malloc(w->row_size);
    w->scratch[1] = malloc(w->row_size);
    if (w->filtered == NULL || w->zero_row == NULL || w->scratch[0] == NULL || w->scratch[1] == NULL) {
        pngc_message(message, "cannot allocate %zu bytes for the PNG's filtered rows (out of memory)", w->filtered_size);
        return 0;
    }
    return 1;
}

/* Converts and filters every row into w->filtered. Returns OK or CANCELLED. */
static ip_status filter_rows(fast_writer *w, ip_message message) {
    const pngc_encode_params *p = w->params;
    size_t pixel_size = pngc_output_pixel_size(p);
    const uint8_t *above = w->zero_row;
    for (uint32_t y = 0; y < p->height; y++) {
        if (y % PNGC_CANCEL_INTERVAL == 0 && p->cancelled != NULL && p->cancelled(p->cancel_context)) {
            pngc_message(message, "cancelled");
            return IP_STATUS_CANCELLED;
        }
        const uint8_t *row = pngc_output_row(p, y, w->scratch[y & 1u]);
        pngc_filter_row(row, above, w->row_size, pixel_size, p->fast_filters, w->filtered + (size_t)y * (w->row_size + 1));
        above = row;
    }
    return IP_STATUS_OK;
}

/* The level for speed 0 (the caller stated none), chosen by what the rows are: level 7 where its deeper search pays
 * (drawings, text, flat colour), level 5 for photographic rows, where it buys almost nothing at up to three times
 * the time. A sample of the filtered rows (four slices of PNGC_SAMPLE_SLICE bytes, spread over the image) is
 * deflated at level 1: rows that keep more than a quarter of their size are photographic. Bytes (deflate ms) of the
 * same filtered rows at levels 1 / 5 / 7, and the level-1 ratio of the whole rows (2 cores):
 *   640×480 photo           282123 (5.6)   255008 (28.7)   250731 (84.6)   31 %
 *   256×192 photo thumbnail  67689 (0.7)    63593 (3.7)     63392 (5.7)    46 %
 *   256×171 SVG badge        25439 (0.6)    21298 (1.5)     17377 (3.7)    15 %
 *   640×480 logo: drawing    67481 (3.3)    63674 (3.7)     63602 (5.4)     7 %
 *   1024×1324 PDF page       19020 (14.0)   17373 (14.2)    17364 (13.4)   <1 %
 * Photographic rows at level 5 are 0.3-1.7 % bigger and 1.5-3× faster to deflate; the greedy levels (2-4) lost up to
 * 4.5 % on the interop test's photo-like image, which must stay within 3 % of libpng's level 6. Drawings keep level
 * 7, for the sample's cost (about 0.2 ms). The test (deflate's ratio at its fastest level) is the one OpenZFS's
 * zstd "early abort" makes before it spends effort on a block. */
#define PNGC_SAMPLE_SLICE (8u * 1024u)
#define PNGC_SAMPLE_SLICES 4u
#define PNGC_PHOTOGRAPHIC_LEVEL 5
#define PNGC_DRAWING_LEVEL 7

int pngc_default_deflate_level(const uint8_t *data, size_t size) {
    struct libdeflate_compressor *fastest = libdeflate_alloc_compressor(1);
    if (fastest == NULL) return PNGC_DRAWING_LEVEL;  /* Out of memory: the main compressor will say so. */
    size_t slice = size < PNGC_SAMPLE_SLICE * PNGC_SAMPLE_SLICES ? (size + PNGC_SAMPLE_SLICES - 1) / PNGC_SAMPLE_SLICES
                                                                 : PNGC_SAMPLE_SLICE;
    uint8_t out[PNGC_SAMPLE_SLICE + 1024];  /* libdeflate's bound for a slice: its size plus a few header bytes */
    size_t sampled = 0, kept = 0;
    /* slice <= size, so every slice lies whole within the rows (they overlap when the rows are short). */
    for (size_t i = 0; i < PNGC_SAMPLE_SLICES && slice > 0; i++) {
        size_t offset = i * (size - slice) / (PNGC_SAMPLE_SLICES - 1);
        size_t compressed = libdeflate_deflate_compress(fastest, data + offset, slice, out, sizeof out);
        sampled += slice;
        kept += compressed == 0 ? slice : compressed;  /* 0: it did not fit, so it did not shrink */
    }
    libdeflate_free_compressor(fastest);
    return sampled > 0 && kept * 4 > sampled ? PNGC_PHOTOGRAPHIC_LEVEL : PNGC_DRAWING_LEVEL;
}

/* Deflates w->filtered into w->compressed as one zlib stream; returns its size, 0 with a message on failure. */
static size_t compress_rows(fast_writer *w, ip_status *status, ip_message message) {
    int level = w->params->speed == 0 ? pngc_default_deflate_level(w->filtered, w->filtered_size)
                                      : pngc_deflate_level(w->params->speed);
    w->compressor = libdeflate_alloc_compressor(level);
    if (w->compressor == NULL) {
        *status = IP_STATUS_NO_MEMORY;
        pngc_message(message, "cannot create libdeflate's compressor (out of memory)");
        return 0;
    }
    size_t bound = libdeflate_zlib_compress_bound(w->compressor, w->filtered_size);
    w->compressed = malloc(bound);
    if (w->compressed == NULL) {
        *status = IP_STATUS_NO_MEMORY;
        pngc_message(message, "cannot allocate %zu bytes for the compressed PNG data (out of memory)", bound);
        return 0;
    }
    size_t size = libdeflate_zlib_compress(w->compressor, w->filtered, w->filtered_size, w->compressed, bound);
    if (size == 0) {  /* Cannot happen with a buffer of the bound's size; kept as a clear error, not a bad file. */
        *status = IP_STATUS_INTERNAL;
        pngc_message(message, "libdeflate could not compress %zu bytes into %zu", w->filtered_size, bound);
    }
    return size;
}

/* IDAT chunks of at most PNGC_IDAT_SIZE bytes, then IEND. */
static ip_status write_data(const fast_writer *w, size_t size) {
    const ip_byte_sink *sink = w->params->sink;
    for (size_t offset = 0; offset < size; offset += PNGC_IDAT_SIZE) {
        size_t length = size - offset < PNGC_IDAT_SIZE ? size - offset : PNGC_IDAT_SIZE;
        ip_status status = write_chunk(sink, "IDAT", w->compressed + offset, (uint32_t)length);
        if (status != IP_STATUS_OK) return status;
    }
    return write_chunk(sink, "IEND", NULL, 0);
}

ip_status pngc_encode_fast(const pngc_encode_params *params, ip_message message) {
    fast_writer w = {.params = params, .row_size = (size_t)params->width * pngc_output_pixel_size(params)};
    ip_status status = IP_STATUS_NO_MEMORY;
    size_t compressed_size = 0;
    if (!allocate(&w, message)) goto done;
    status = filter_rows(&w, message);
    if (status != IP_STATUS_OK) goto done;
    compressed_size = compress_rows(&w, &status, message);
    if (compressed_size == 0) goto done;
    /* Only bytes from here on: the output starts once nothing but the sink can fail. */
    free(w.filtered);
    w.filtered = NULL;
    status = write_header(params);
    if (status == IP_STATUS_OK) status = write_data(&w, compressed_size);
    if (status != IP_STATUS_OK) pngc_message(message, "the output refused the PNG bytes (status %d)", (int)status);
done:
    fast_writer_free(&w);
    return status;
}
