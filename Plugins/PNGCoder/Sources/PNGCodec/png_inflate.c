/* PNGCodec: a PNG's image data inflated at once by libdeflate, then handed to libpng as stored deflate blocks.
 *
 * Why: zlib's inflate was half of a PNG decode's CPU (perf: 50 % of a 1600x1200 16-bit decode, 30 % of a
 * 640x480 one); libdeflate inflates the same stream two to three times faster, but only whole, not row by row.
 * So for an image whose filtered rows fit under a bound, the rows are inflated here first and libpng reads a
 * stream in which they are stored uncompressed: its inflate becomes a copy, and everything else (the transforms to
 * RGBA, the colour chunks, the errors, and the unfiltering of rows whose pixels are 1 or 2 bytes; png_unfilter.c
 * undoes the others faster) stays libpng's. A file this path does not accept as
 * perfect — a bad CRC, a short or over-long stream, interlacing, a size past the bound — is read by libpng from
 * the file itself, exactly as before, with libpng's own errors and leniencies. */
#include "png_codec_internal.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

/* The largest stored block deflate allows. */
#define STORED_BLOCK_MAX 65535u

static uint32_t be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static void put_be32(uint8_t *p, uint32_t value) {
    p[0] = (uint8_t)(value >> 24);
    p[1] = (uint8_t)(value >> 16);
    p[2] = (uint8_t)(value >> 8);
    p[3] = (uint8_t)value;
}

/* Bytes of the filtered rows of a non-interlaced image (a filter byte per row), or 0 when the header is not one
 * libpng would accept or the size passes `max_raw`. */
static size_t filtered_size(const uint8_t *ihdr, size_t max_raw) {
    uint32_t width = be32(ihdr), height = be32(ihdr + 4);
    unsigned depth = ihdr[8], color = ihdr[9], interlace = ihdr[12];
    unsigned channels;
    switch (color) {
    case 0: channels = 1; break;
    case 2: channels = 3; break;
    case 3: channels = 1; break;
    case 4: channels = 2; break;
    case 6: channels = 4; break;
    default: return 0;
    }
    if (interlace != 0 || width == 0 || height == 0 || width > PNG_UINT_31_MAX || height > PNG_UINT_31_MAX) return 0;
    if (depth != 1 && depth != 2 && depth != 4 && depth != 8 && depth != 16) return 0;
    uint64_t row = ((uint64_t)width * channels * depth + 7) / 8 + 1;
    uint64_t total = row * height;
    return total <= max_raw ? (size_t)total : 0;
}

int pngc_inflate_whole(const uint8_t *data, size_t size, size_t max_raw, pngc_inflated *inflated) {
    memset(inflated, 0, sizeof *inflated);
    if (data == NULL || size < 8 + 25) return 0;
    /* Every chunk up to the end of the first run of IDAT chunks, each checked against its CRC. */
    size_t position = 8, first_idat = 0, idat_bytes = 0, idat_chunks = 0, raw_size = 0;
    const uint8_t *ihdr = NULL;
    while (position + 12 <= size) {
        uint32_t length = be32(data + position);
        if (length > PNG_UINT_31_MAX || length > size - position - 12) return 0;
        const uint8_t *type = data + position + 4;
        if (libdeflate_crc32(0, type, 4 + (size_t)length) != be32(data + position + 8 + length)) return 0;
        int is_idat = memcmp(type, "IDAT", 4) == 0;
        if (position == 8) {
            if (memcmp(type, "IHDR", 4) != 0 || length != 13) return 0;
            ihdr = type + 4;
            raw_size = filtered_size(ihdr, max_raw);
            if (raw_size == 0) return 0;
        }
        if (is_idat) {
            if (first_idat == 0) first_idat = position;
            idat_bytes += length;
            idat_chunks++;
        } else if (first_idat != 0 || memcmp(type, "IEND", 4) == 0) {
            break;
        }
        position += 12 + (size_t)length;
    }
    if (first_idat == 0 || idat_bytes == 0) return 0;

    /* libdeflate wants the stream in one piece: a file split into several IDAT chunks is joined first. */
    const uint8_t *stream = data + first_idat + 8;
    uint8_t *joined = NULL;
    if (idat_chunks > 1) {
        joined = malloc(idat_bytes);
        if (joined == NULL) return 0;
        size_t at = first_idat, filled = 0;
        for (size_t i = 0; i < idat_chunks; i++) {
            uint32_t length = be32(data + at);
            memcpy(joined + filled, data + at + 8, length);
            filled += length;
            at += 12 + (size_t)length;
        }
        stream = joined;
    }
    /* 8 bytes more than the rows: png_unfilter.c reads each pixel as 8 bytes. */
    uint8_t *raw = malloc(raw_size + 8);
    struct libdeflate_decompressor *decompressor = raw != NULL ? libdeflate_alloc_decompressor() : NULL;
    size_t produced = 0;
    /* Exactly the rows, with a good Adler-32: a stream that ends early, runs on past the image (libpng stops
     * at the last row without inflating the rest) or is damaged anywhere goes back to libpng whole. */
    int whole = decompressor != NULL
        && libdeflate_zlib_decompress_ex(decompressor, stream, idat_bytes, raw, raw_size, NULL, &produced) == LIBDEFLATE_SUCCESS
        && produced == raw_size;
    libdeflate_free_decompressor(decompressor);
    free(joined);
    if (!whole) {
        free(raw);
        return 0;
    }
    /* Truecolour, and gray with alpha at 16 bits: pixels of 3 to 8 bytes (filtered_size checked the header). */
    unsigned depth = ihdr[8], color = ihdr[9];
    size_t channels = color == 2 ? 3 : color == 6 ? 4 : color == 4 ? 2 : 0;
    size_t bpp = depth >= 8 ? channels * depth / 8 : 0;
    if (bpp >= 3) {
        size_t row_bytes = (size_t)be32(ihdr) * bpp + 1;
        uint8_t *zero_row = calloc(1, row_bytes + 8); /* the row above the first, padded as `raw` is */
        if (zero_row != NULL) pngc_unfilter_rows(raw, raw_size, row_bytes, bpp, zero_row);
        free(zero_row);
    }
    inflated->data = data;
    inflated->prefix = first_idat;
    inflated->raw = raw;
    inflated->raw_size = raw_size;
    inflated->adler = libdeflate_adler32(1, raw, raw_size);
    return 1;
}

/* The next piece of the stored stream: a chunk's head (length, type, the zlib header before the first block, the
 * block's header) with its block as the body, or the tail after it (the Adler-32 after the last block, the CRC,
 * which libpng is told not to check). 0 when the stream is over. */
static int next_piece(pngc_inflated *s) {
    uint8_t *p = s->piece;
    if (s->finished) return 0;
    if (s->in_tail) {
        size_t n = 0;
        if (s->raw_next == s->raw_size) {
            put_be32(p, s->adler);
            n = 4;
            s->finished = 1;
        }
        memset(p + n, 0, 4);
        s->piece_length = n + 4;
        s->in_tail = 0;
    } else {
        size_t left = s->raw_size - s->raw_next;
        size_t block = left < STORED_BLOCK_MAX ? left : STORED_BLOCK_MAX;
        int first = s->raw_next == 0, last = block == left;
        size_t n = 8;
        put_be32(p, (uint32_t)((first ? 2 : 0) + 5 + block + (last ? 4 : 0)));
        memcpy(p + 4, "IDAT", 4);
        if (first) {
            p[n++] = 0x78; /* deflate, 32 KiB window */
            p[n++] = 0x01; /* no dictionary, check bits */
        }
        p[n++] = last ? 1 : 0; /* BFINAL, BTYPE 00 (stored) */
        p[n++] = (uint8_t)block;
        p[n++] = (uint8_t)(block >> 8);
        p[n++] = (uint8_t)~block;
        p[n++] = (uint8_t)(~block >> 8);
        s->piece_length = n;
        s->body = s->raw + s->raw_next;
        s->body_left = block;
        s->raw_next += block;
        s->in_tail = 1;
    }
    s->piece_position = 0;
    return 1;
}

int pngc_inflated_read(pngc_inflated *s, uint8_t *out, size_t length) {
    while (length > 0) {
        size_t n;
        if (s->position < s->prefix) {
            n = s->prefix - s->position;
            if (n > length) n = length;
            memcpy(out, s->data + s->position, n);
            s->position += n;
        } else if (s->piece_position < s->piece_length) {
            n = s->piece_length - s->piece_position;
            if (n > length) n = length;
            memcpy(out, s->piece + s->piece_position, n);
            s->piece_position += n;
        } else if (s->body_left > 0) {
            n = s->body_left < length ? s->body_left : length;
            memcpy(out, s->body, n);
            s->body += n;
            s->body_left -= n;
        } else if (!next_piece(s)) {
            return 0;
        } else {
            continue;
        }
        out += n;
        length -= n;
    }
    return 1;
}

void pngc_inflated_release(pngc_inflated *inflated) {
    free(inflated->raw);
    inflated->raw = NULL;
}
