/* PNGCodec: the row filters of images with 3-, 4-, 6- or 8-byte pixels (8- and 16-bit RGB and RGBA, 16-bit gray
 * with alpha) undone with SSE2, for the rows png_inflate.c has already inflated.
 *
 * Why: Debian's libpng is built without its optional vector filters (its library has no SSE2 instruction), so it
 * undoes the Sub, Average and Paeth filters a byte at a time, each byte waiting on the one a pixel before it (perf:
 * 29 % of a 1600x1200 16-bit PNG thumbnail, about as long as the inflate). One pixel's bytes do not depend on each
 * other, so a pixel is undone as one vector of 16-bit lanes, as libpng's own optional SSE2 code does: the same
 * arithmetic of the PNG specification (section 9), so the same bytes, about 5x faster (a 1600x1200 RGB16 image:
 * 5 ms against 24-26 ms for a plain byte loop). The rows are then marked filter type 0 (None), so libpng copies
 * them and everything else (the transforms, the colour chunks, the errors) stays its own. Pixels of 1 and 2 bytes
 * (gray, palette, 8-bit gray with alpha) are left to libpng: a vector of one or two lanes gains nothing. */
#include "png_codec_internal.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>

/* 8 bytes at `p`: a pixel and the bytes after it, which the caller's padding keeps readable and whose lanes are
 * never stored. Loading 8 whatever the pixel size keeps each load clear of the previous pixel's store (no
 * store-forwarding stall) and is one instruction. */
static inline __m128i load_pixel(const uint8_t *p) { return _mm_loadl_epi64((const __m128i *)p); }

static inline void store_pixel(uint8_t *p, __m128i value, size_t bpp) {
    uint64_t bytes = (uint64_t)_mm_cvtsi128_si64(value);
    memcpy(p, &bytes, bpp);
}

static inline __m128i abs16(__m128i x) { return _mm_max_epi16(x, _mm_sub_epi16(_mm_setzero_si128(), x)); }

/* `mask ? yes : no`, lane by lane. */
static inline __m128i choose(__m128i mask, __m128i yes, __m128i no) {
    return _mm_or_si128(_mm_and_si128(mask, yes), _mm_andnot_si128(mask, no));
}

/* One row of `n` bytes (without its filter byte) whose pixels are `bpp` bytes; `prior` is the row above, already
 * undone (zeros above the first). Inlined for each `bpp`, so that the pixel's store is a constant size. */
static inline __attribute__((always_inline)) void undo_row(uint8_t *row, const uint8_t *prior, size_t n, const size_t bpp,
                                                           int type) {
    const __m128i zero = _mm_setzero_si128();
    __m128i left = zero;       /* the pixel before, undone (bytes) */
    __m128i upper_left = zero; /* the pixel above that one (16-bit lanes) */
    switch (type) {
    case 1: /* Sub */
        for (size_t i = 0; i < n; i += bpp) {
            left = _mm_add_epi8(load_pixel(row + i), left);
            store_pixel(row + i, left, bpp);
        }
        break;
    case 2: /* Up */
        for (size_t i = 0; i < n; i++) row[i] = (uint8_t)(row[i] + prior[i]);
        break;
    case 3: /* Average */
        for (size_t i = 0; i < n; i += bpp) {
            __m128i up = _mm_unpacklo_epi8(load_pixel(prior + i), zero);
            __m128i mean = _mm_srli_epi16(_mm_add_epi16(_mm_unpacklo_epi8(left, zero), up), 1);
            left = _mm_add_epi8(load_pixel(row + i), _mm_packus_epi16(mean, mean));
            store_pixel(row + i, left, bpp);
        }
        break;
    case 4: /* Paeth: the neighbour nearest to left + up - upper-left, ties to left, then up */
        for (size_t i = 0; i < n; i += bpp) {
            __m128i up = _mm_unpacklo_epi8(load_pixel(prior + i), zero);
            __m128i a = _mm_unpacklo_epi8(left, zero);
            __m128i from_a = _mm_sub_epi16(up, upper_left); /* p - a */
            __m128i from_b = _mm_sub_epi16(a, upper_left);  /* p - b */
            __m128i pa = abs16(from_a), pb = abs16(from_b), pc = abs16(_mm_add_epi16(from_a, from_b));
            __m128i smallest = _mm_min_epi16(_mm_min_epi16(pa, pb), pc);
            __m128i nearest = choose(_mm_cmpeq_epi16(smallest, pa), a, choose(_mm_cmpeq_epi16(smallest, pb), up, upper_left));
            left = _mm_add_epi8(load_pixel(row + i), _mm_packus_epi16(nearest, nearest));
            store_pixel(row + i, left, bpp);
            upper_left = up;
        }
        break;
    default: /* None */
        break;
    }
}

int pngc_unfilter_rows(uint8_t *raw, size_t raw_size, size_t row_bytes, size_t bpp, const uint8_t *zero_row) {
    if ((bpp != 3 && bpp != 4 && bpp != 6 && bpp != 8) || row_bytes < 2 || raw_size % row_bytes != 0
        || (row_bytes - 1) % bpp != 0) {
        return 0;
    }
    size_t rows = raw_size / row_bytes;
    /* A filter type libpng does not know is its error to report: such a stream is left as it came. */
    for (size_t y = 0; y < rows; y++) {
        if (raw[y * row_bytes] > 4) return 0;
    }
    for (size_t y = 0; y < rows; y++) {
        uint8_t *row = raw + y * row_bytes;
        const uint8_t *prior = y == 0 ? zero_row : row - row_bytes + 1;
        switch (bpp) {
        case 3: undo_row(row + 1, prior, row_bytes - 1, 3, row[0]); break;
        case 4: undo_row(row + 1, prior, row_bytes - 1, 4, row[0]); break;
        case 6: undo_row(row + 1, prior, row_bytes - 1, 6, row[0]); break;
        default: undo_row(row + 1, prior, row_bytes - 1, 8, row[0]); break;
        }
        row[0] = 0;
    }
    return 1;
}
#else
int pngc_unfilter_rows(uint8_t *raw, size_t raw_size, size_t row_bytes, size_t bpp, const uint8_t *zero_row) {
    (void)raw, (void)raw_size, (void)row_bytes, (void)bpp, (void)zero_row;
    return 0; /* libpng undoes the filters */
}
#endif
