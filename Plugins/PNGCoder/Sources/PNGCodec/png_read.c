/* PNGCodec: reading a PNG from memory or by ranges (probe and decode). */
#include "png_codec_internal.h"

#include <box_shrink.h>

#include <stdlib.h>
#include <string.h>

/* Largest ancillary chunk libpng may allocate. The chunks we keep (PLTE, tRNS) are tiny; the big ones
 * (iCCP, text) are skipped unread, so this only bounds what a hostile file can make libpng allocate. */
#define PNGC_CHUNK_MALLOC_MAX (8u * 1024u * 1024u)

/* The most filtered-row bytes inflated beforehand by libdeflate (png_inflate.c): a full decode's output is as large
 * as its rows or larger, so at most it doubles for a moment; a reduced decode exists not to hold the image, so it
 * allows only what a photo of a few megapixels takes, and larger files stream through zlib row by row. */
#define PNGC_INFLATE_MAX ((size_t)64 << 20)
#define PNGC_INFLATE_MAX_REDUCED ((size_t)24 << 20)

/* One read session. Heap-allocated so that every field keeps its value across png_error's longjmp
 * (locals changed after setjmp are indeterminate afterwards; memory reached through a pointer is not). */
typedef struct pngc_reader {
    png_structp png;
    png_infop info;
    pngc_errors errors;
    const uint8_t *data;
    size_t size;
    size_t offset;
    /* Read by ranges: `data` is then only the prefix, and `offset` the position in the whole source. */
    int has_ranged;
    pngc_ranged ranged;
    /* Set by the read callback when libpng asked for bytes past the end of the input. */
    int ran_out;
    /* Decoding only: the image's height and interlacing, so the read callback knows when every row is done. */
    uint32_t height;
    int interlaced;
    int decoding;
    /* Set by the read callback when libpng asked for more bytes after the last row was complete. */
    int image_complete;
    /* Set when the rows were inflated beforehand: libpng then reads `inflated`'s stream, not `data`. */
    int pre_inflated;
    pngc_inflated inflated;
} pngc_reader;

/* Ancillary chunks we never use; libpng skips them without parsing or allocating (no text, no physical size).
 * The colour chunks (iCCP, sRGB, gAMA, cHRM) are read: the host converts colour from what they state. */
static const png_byte ignored_chunks[] = {
    'b', 'K', 'G', 'D', '\0', 'e', 'X', 'I', 'f', '\0',
    'h', 'I', 'S', 'T', '\0', 'i', 'T', 'X', 't', '\0', 'o', 'F', 'F', 's', '\0',
    'p', 'C', 'A', 'L', '\0', 'p', 'H', 'Y', 's', '\0', 's', 'B', 'I', 'T', '\0', 's', 'C', 'A', 'L', '\0',
    's', 'P', 'L', 'T', '\0', 't', 'E', 'X', 't', '\0', 't', 'I', 'M', 'E', '\0',
    'z', 'T', 'X', 't', '\0',
};

/* True once libpng has delivered every row: it then only wants to reach the end of the zlib stream and the
 * chunk's CRC (png_read_finish_IDAT). That stream may go on far beyond the image: 1 MB of IDAT can inflate to
 * 1 GiB of zeros after the last row, seconds of CPU for nothing. Browsers stop at the last row too. */
static int all_rows_done(const pngc_reader *reader) {
    if (!reader->decoding) return 0;
    if (reader->interlaced) return png_get_current_pass_number(reader->png) >= 7;
    return png_get_current_row_number(reader->png) >= reader->height;
}

static void read_from_memory(png_structp png, png_bytep out, size_t length) {
    pngc_reader *reader = (pngc_reader *)png_get_io_ptr(png);
    if (all_rows_done(reader)) {
        reader->image_complete = 1;
        png_error(png, "every row is decoded; the rest of the stream is not read");
    }
    if (reader->pre_inflated) {
        if (!pngc_inflated_read(&reader->inflated, out, length)) {
            reader->ran_out = 1;
            png_error(png, "unexpected end of data");
        }
        return;
    }
    if (reader->has_ranged) {
        size_t filled = 0;
        while (filled < length) {
            int64_t got = reader->ranged.read_at(reader->ranged.context, (uint64_t)reader->offset + filled, out + filled,
                                                 length - filled);
            if (got <= 0 || (uint64_t)got > length - filled) {
                reader->ran_out = got == 0 ? 1 : 2;
                png_error(png, got == 0 ? "unexpected end of data" : "the source could not be read");
            }
            filled += (size_t)got;
        }
        reader->offset += length;
        return;
    }
    if (length > reader->size - reader->offset) {
        reader->ran_out = 1;
        png_error(png, "unexpected end of data");
    }
    memcpy(out, reader->data + reader->offset, length);
    reader->offset += length;
}

/* Checks the signature and creates the libpng structs. Returns OK or an error with its message. */
static ip_status reader_create(const uint8_t *data, size_t size, const pngc_ranged *ranged, pngc_reader **result,
                               ip_message message) {
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    *result = NULL;
    if ((data == NULL && size > 0) || (ranged != NULL && (ranged->read_at == NULL || ranged->size < size))) {
        pngc_message(message, ranged != NULL ? "a ranged source without a reader, or shorter than its prefix" : "no input bytes");
        return IP_STATUS_INTERNAL;
    }
    size_t compared = size < 8 ? size : 8;
    if (compared > 0 && memcmp(data, signature, compared) != 0) {
        pngc_message(message, "not a PNG file (wrong signature)");
        return IP_STATUS_INVALID_DATA;
    }
    if (size < 8) {
        pngc_message(message, "PNG data ends after %zu bytes, inside the signature", size);
        return IP_STATUS_TRUNCATED;
    }
    pngc_reader *reader = calloc(1, sizeof *reader);
    if (reader == NULL) {
        pngc_message(message, "out of memory");
        return IP_STATUS_NO_MEMORY;
    }
    reader->data = data;
    reader->size = size;
    if (ranged != NULL) {
        reader->has_ranged = 1;
        reader->ranged = *ranged;
    }
    reader->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reader->errors, pngc_on_error, pngc_on_warning);
    if (reader->png != NULL) reader->info = png_create_info_struct(reader->png);
    if (reader->png == NULL || reader->info == NULL) {
        png_destroy_read_struct(reader->png != NULL ? &reader->png : NULL, NULL, NULL);
        free(reader);
        pngc_message(message, "cannot create libpng's reader (out of memory)");
        return IP_STATUS_NO_MEMORY;
    }
    *result = reader;
    return IP_STATUS_OK;
}

static void reader_destroy(pngc_reader *reader) {
    png_destroy_read_struct(&reader->png, &reader->info, NULL);
    pngc_inflated_release(&reader->inflated);
    free(reader);
}

/* The status and message for the error that ended a session (called after the longjmp). */
static ip_status reader_failure(const pngc_reader *reader, ip_message message) {
    if (reader->ran_out == 2) {
        pngc_message(message, "cannot read the PNG at byte %zu (an I/O error)", reader->offset);
        return IP_STATUS_IO;
    }
    if (reader->ran_out) {
        pngc_message(message, "PNG data ends after %llu bytes, before the image is complete",
                     (unsigned long long)(reader->has_ranged ? reader->ranged.size : reader->size));
        return IP_STATUS_TRUNCATED;
    }
    ip_status status = pngc_status_for_libpng_error(reader->errors.text);
    pngc_message(message, "%s PNG: %s", status == IP_STATUS_TRUNCATED ? "truncated" : "invalid", reader->errors.text);
    return status;
}

/* Settings every read session shares. Must run inside the session's setjmp. */
static void reader_configure(pngc_reader *reader, png_uint_32 max_width, png_uint_32 max_height) {
    png_set_read_fn(reader->png, reader, read_from_memory);
    png_set_user_limits(reader->png, max_width, max_height);
    png_set_chunk_malloc_max(reader->png, PNGC_CHUNK_MALLOC_MAX);
    png_set_keep_unknown_chunks(reader->png, PNG_HANDLE_CHUNK_NEVER, ignored_chunks,
                                (int)(sizeof ignored_chunks / 5));
}

/* The colour chunks libpng accepted. The profile is copied (libpng frees its own with the reader). */
static void reader_fill_color(const pngc_reader *reader, pngc_info *info) {
    png_structp png = reader->png;
    png_inforp pinfo = reader->info;
    info->color_flags = 0;
    info->icc_profile = NULL;
    info->icc_size = 0;
    png_charp name = NULL;
    png_bytep profile = NULL;
    png_uint_32 length = 0;
    int compression = 0;
    if (png_get_iCCP(png, pinfo, &name, &compression, &profile, &length) == PNG_INFO_iCCP && profile != NULL && length > 0) {
        info->icc_profile = malloc(length);
        if (info->icc_profile != NULL) {
            memcpy(info->icc_profile, profile, length);
            info->icc_size = length;
            info->color_flags |= IP_COLOR_ICC;
        }
    }
    int intent = 0;
    if (png_get_sRGB(png, pinfo, &intent) == PNG_INFO_sRGB) info->color_flags |= IP_COLOR_SRGB;
    png_fixed_point gamma = 0;
    if (png_get_gAMA_fixed(png, pinfo, &gamma) == PNG_INFO_gAMA && gamma > 0) {
        info->gamma = (uint32_t)gamma;
        info->color_flags |= IP_COLOR_GAMMA;
    }
    png_fixed_point c[8] = {0};
    if (png_get_cHRM_fixed(png, pinfo, &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7]) == PNG_INFO_cHRM) {
        int valid = 1;
        for (int i = 0; i < 8; i++) {
            if (c[i] <= 0) valid = 0;
            info->chromaticities[i] = c[i] > 0 ? (uint32_t)c[i] : 0;
        }
        if (valid) info->color_flags |= IP_COLOR_CHROMATICITIES;
    }
}

void pngc_info_release(pngc_info *info) {
    if (info == NULL) return;
    free(info->icc_profile);
    info->icc_profile = NULL;
    info->icc_size = 0;
    info->color_flags &= ~(uint32_t)IP_COLOR_ICC;
}

static void reader_fill_info(const pngc_reader *reader, pngc_info *info) {
    memset(info, 0, sizeof *info);
    info->width = png_get_image_width(reader->png, reader->info);
    info->height = png_get_image_height(reader->png, reader->info);
    info->bit_depth = png_get_bit_depth(reader->png, reader->info);
    info->color_type = png_get_color_type(reader->png, reader->info);
    info->interlaced = png_get_interlace_type(reader->png, reader->info) != PNG_INTERLACE_NONE;
    info->has_trns = png_get_valid(reader->png, reader->info, PNG_INFO_tRNS) != 0;
    reader_fill_color(reader, info);
}

ip_status pngc_probe(const uint8_t *data, size_t size, const pngc_ranged *ranged, pngc_info *info, ip_message message) {
    pngc_reader *reader;
    ip_status status = reader_create(data, size, ranged, &reader, message);
    if (status != IP_STATUS_OK) return status;
    if (setjmp(png_jmpbuf(reader->png))) {
        status = reader_failure(reader, message);
        reader_destroy(reader);
        return status;
    }
    /* The full PNG range: the caller applies its own limits to what the header says. */
    reader_configure(reader, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    png_read_info(reader->png, reader->info);
    reader_fill_info(reader, info);
    reader_destroy(reader);
    return IP_STATUS_OK;
}

uint64_t pngc_minimum_file_size(const pngc_info *info) {
    int channels;
    switch (info->color_type) {
    case PNGC_COLOR_RGB: channels = 3; break;
    case PNGC_COLOR_GRAY_ALPHA: channels = 2; break;
    case PNGC_COLOR_RGBA: channels = 4; break;
    default: channels = 1; break;
    }
    /* Raw image bytes at the least (filter bytes and row padding only add), then deflate's best ratio. */
    uint64_t raw_bits = (uint64_t)info->width * info->height * (uint64_t)(channels * info->bit_depth);
    return raw_bits / 8 / 1032 + 8 + 25 + 12;
}

/* Asks libpng for RGBA output of the wanted depth, whatever the stored colour type. */
static void reader_request_rgba(pngc_reader *reader, int output16) {
    png_structp png = reader->png;
    int color_type = png_get_color_type(png, reader->info);
    int bit_depth = png_get_bit_depth(png, reader->info);
    int has_trns = png_get_valid(png, reader->info, PNG_INFO_tRNS) != 0;
    /* Palette to RGB, gray below 8 bits to 8 bits, tRNS to an alpha channel. */
    png_set_expand(png);
    if (bit_depth == 16 && !output16) png_set_scale_16(png);
    if (bit_depth < 16 && output16) png_set_expand_16(png);
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    if (!(color_type & PNG_COLOR_MASK_ALPHA) && !has_trns) {
        png_set_add_alpha(png, output16 ? 0xFFFF : 0xFF, PNG_FILLER_AFTER);
    }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* PNG stores 16-bit samples big-endian; IP_PIXEL_RGBA16 is native-endian. */
    if (output16) png_set_swap(png);
#endif
}

/* The one decode loop: rows into `pixels` (stride apart), or, with `reduce`, each into `scratch` and then the
 * shrinker. */
static ip_status decode_rows(const uint8_t *data, size_t size, const pngc_ranged *ranged, const pngc_info *expected,
                             int32_t output16, uint8_t *pixels, size_t stride, struct bxs_shrinker *reduce, uint8_t *scratch,
                             pngc_cancel_fn cancelled, void *cancel_context, ip_message message);

ip_status pngc_decode(const uint8_t *data, size_t size, const pngc_ranged *ranged, const pngc_info *expected, int32_t output16,
                      uint8_t *pixels, size_t stride, pngc_cancel_fn cancelled, void *cancel_context,
                      ip_message message) {
    if (expected == NULL || pixels == NULL) {
        pngc_message(message, "pngc_decode: missing header or pixel buffer");
        return IP_STATUS_INTERNAL;
    }
    return decode_rows(data, size, ranged, expected, output16, pixels, stride, NULL, NULL, cancelled, cancel_context, message);
}

ip_status pngc_decode_reduced(const uint8_t *data, size_t size, const pngc_ranged *ranged, const pngc_info *expected, int32_t output16,
                              struct bxs_shrinker *reduce, pngc_cancel_fn cancelled, void *cancel_context,
                              ip_message message) {
    if (expected == NULL || reduce == NULL || expected->interlaced) {
        pngc_message(message, "pngc_decode_reduced: missing header or shrinker, or an interlaced PNG");
        return IP_STATUS_INTERNAL;
    }
    size_t row_bytes = (size_t)expected->width * (output16 ? 8u : 4u);
    uint8_t *scratch = malloc(row_bytes);
    if (scratch == NULL) {
        pngc_message(message, "out of memory for one row of %zu bytes", row_bytes);
        return IP_STATUS_NO_MEMORY;
    }
    ip_status status = decode_rows(data, size, ranged, expected, output16, NULL, row_bytes, reduce, scratch, cancelled,
                                   cancel_context, message);
    free(scratch);
    return status;
}

/* The stored layout of the rows, read after png_read_info and before the transforms change what libpng reports. */
static pngc_stored_layout read_stored_layout(const pngc_reader *reader, uint32_t width) {
    png_structp png = reader->png;
    pngc_stored_layout layout;
    layout.color_type = png_get_color_type(png, reader->info);
    layout.bit_depth = png_get_bit_depth(png, reader->info);
    layout.has_trns = png_get_valid(png, reader->info, PNG_INFO_tRNS) != 0;
    layout.row_stride = 1 + (size_t)width * png_get_channels(png, reader->info) * ((size_t)layout.bit_depth / 8u);
    return layout;
}

static ip_status decode_rows(const uint8_t *data, size_t size, const pngc_ranged *ranged, const pngc_info *expected,
                             int32_t output16, uint8_t *pixels, size_t stride, struct bxs_shrinker *reduce, uint8_t *scratch,
                             pngc_cancel_fn cancelled, void *cancel_context, ip_message message) {
    size_t row_bytes = (size_t)expected->width * (output16 ? 8u : 4u);
    if (stride < row_bytes) {
        pngc_message(message, "pngc_decode: stride %zu is smaller than a row of %zu bytes", stride, row_bytes);
        return IP_STATUS_INTERNAL;
    }
    pngc_reader *reader;
    ip_status status = reader_create(data, size, ranged, &reader, message);
    if (status != IP_STATUS_OK) return status;
    /* A ranged source is large by definition (the host reads small files whole): libpng inflates it row by row
     * from the chunks as it reads them, which is what keeps the source out of memory. */
    reader->pre_inflated = ranged == NULL
        && pngc_inflate_whole(data, size, reduce != NULL ? PNGC_INFLATE_MAX_REDUCED : PNGC_INFLATE_MAX, &reader->inflated);
    if (setjmp(png_jmpbuf(reader->png))) {
        /* Every row was already copied into `pixels` when libpng went on to finish the stream (and failed on, or
         * was stopped before, whatever follows the image in it): done. */
        status = reader->image_complete || all_rows_done(reader) ? IP_STATUS_OK : reader_failure(reader, message);
        /* libpng fills the last row before it goes on to the end of the stream, where it was stopped: that row
         * never came back from png_read_row, so it is still to be handed to the shrinker. */
        if (status == IP_STATUS_OK && reduce != NULL && bxs_rows_pushed(reduce) + 1 == expected->height) {
            bxs_push(reduce, scratch);
        }
        reader_destroy(reader);
        return status;
    }
    /* The buffer was sized from `expected`: libpng itself refuses anything larger. */
    reader_configure(reader, expected->width, expected->height);
    if (reader->pre_inflated) {
        /* Every CRC up to the rows was checked, and the rows' Adler-32, by pngc_inflate_whole; the stored stream's
         * own are not worth checking again. */
        png_set_crc_action(reader->png, PNG_CRC_QUIET_USE, PNG_CRC_QUIET_USE);
        png_set_option(reader->png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
    }
    png_read_info(reader->png, reader->info);
    pngc_info found;
    reader_fill_info(reader, &found);
    pngc_info_release(&found); /* only the size is compared; the caller has the colour facts from its probe */
    if (found.width != expected->width || found.height != expected->height) {
        pngc_message(message, "PNG header changed between probe and decode");
        reader_destroy(reader);
        return IP_STATUS_INTERNAL;
    }
    pngc_stored_layout layout = read_stored_layout(reader, expected->width);
    reader_request_rgba(reader, output16);
    int passes = png_set_interlace_handling(reader->png);
    reader->height = expected->height;
    reader->interlaced = passes > 1;
    reader->decoding = 1;
    png_read_update_info(reader->png, reader->info);
    if (png_get_rowbytes(reader->png, reader->info) != row_bytes || png_get_channels(reader->png, reader->info) != 4) {
        pngc_message(message, "libpng produced %zu bytes per row instead of %zu",
                     (size_t)png_get_rowbytes(reader->png, reader->info), row_bytes);
        reader_destroy(reader);
        return IP_STATUS_INTERNAL;
    }
    if (reader->pre_inflated
        && pngc_rows_are_direct(&layout, reader->inflated.raw, reader->inflated.raw_size, expected->height, reader->interlaced)) {
        status = pngc_convert_rows(&layout, reader->inflated.raw, expected, output16, pixels, stride, reduce, scratch, cancelled,
                                   cancel_context, message);
        reader_destroy(reader);
        return status;
    }
    /* Interlaced images: every pass visits every row and libpng merges the pass's pixels into it. */
    for (int pass = 0; pass < passes; pass++) {
        for (uint32_t y = 0; y < expected->height; y++) {
            if (y % PNGC_CANCEL_INTERVAL == 0 && cancelled != NULL && cancelled(cancel_context)) {
                pngc_message(message, "cancelled");
                reader_destroy(reader);
                return IP_STATUS_CANCELLED;
            }
            if (reduce == NULL) {
                png_read_row(reader->png, pixels + (size_t)y * stride, NULL);
            } else {
                png_read_row(reader->png, scratch, NULL);
                bxs_push(reduce, scratch);
            }
        }
    }
    /* Nothing after the last row is read (see all_rows_done): a file cut or damaged after its last row still
     * decodes, as in browsers, and a stream that goes on after the image costs nothing. */
    reader_destroy(reader);
    return IP_STATUS_OK;
}
