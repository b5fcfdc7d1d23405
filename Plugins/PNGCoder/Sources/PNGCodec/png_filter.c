/* PNGCodec: choosing and applying each row's PNG filter (PNG specification, sections 9.2-9.4 and 12.8).
 *
 * Speed: a filter is written once as `predict` below, and `sum_filtered` / `apply_filtered` are always inlined
 * with a constant type, so each filter gets its own branch-free loop that the compiler vectorises (a switch on
 * the type inside the byte loop costs about twice as much). Sums are taken in blocks and a candidate is
 * abandoned as soon as its partial sum reaches the best complete sum so far. */
#include "png_encode_internal.h"

#include <stdint.h>
#include <string.h>

/* Bytes summed between two checks of the early exit: small enough to skip most of a losing row, large enough
 * that the check does not stop vectorisation from paying off. */
#define PNGC_SUM_BLOCK 512u

#define PNGC_INLINE static inline __attribute__((always_inline))

/* The Paeth predictor (section 9.4), without branches: of a (left), b (up) and c (up-left), the one nearest to
 * a + b - c, ties going to a, then b. */
PNGC_INLINE uint8_t paeth(uint8_t a, uint8_t b, uint8_t c) {
    int16_t pa = (int16_t)(b - c), pb = (int16_t)(a - c), pc = (int16_t)(a + b - 2 * c);
    pa = pa < 0 ? (int16_t)-pa : pa;
    pb = pb < 0 ? (int16_t)-pb : pb;
    pc = pc < 0 ? (int16_t)-pc : pc;
    uint8_t b_or_c = pb <= pc ? b : c;
    return (pa <= pb && pa <= pc) ? a : b_or_c;
}

/* What filter `type` predicts for a byte from its left (a), upper (b) and upper-left (c) neighbours. */
PNGC_INLINE uint8_t predict(int type, uint8_t a, uint8_t b, uint8_t c) {
    switch (type) {
    case PNGC_FILTER_SUB: return a;
    case PNGC_FILTER_UP: return b;
    case PNGC_FILTER_AVERAGE: return (uint8_t)(((unsigned)a + b) >> 1);
    case PNGC_FILTER_PAETH: return paeth(a, b, c);
    default: return 0;
    }
}

/* |v| for the byte v read as a signed value (0..128): min(v, 256 - v) in unsigned arithmetic. */
PNGC_INLINE uint32_t magnitude(uint8_t v) {
    uint8_t negated = (uint8_t)(0u - v);
    return v < negated ? v : negated;
}

/* The sum of magnitudes of row filtered with `type`, or any value ≥ limit once it is known to reach limit. */
PNGC_INLINE uint64_t sum_filtered(int type, const uint8_t *row, const uint8_t *up, size_t size, size_t bpp,
                                  uint64_t limit) {
    uint64_t sum = 0;
    /* The first pixel has no left neighbour: a = c = 0. */
    size_t first = bpp < size ? bpp : size;
    for (size_t i = 0; i < first; i++) sum += magnitude((uint8_t)(row[i] - predict(type, 0, up[i], 0)));
    for (size_t start = first; start < size; start += PNGC_SUM_BLOCK) {
        if (sum >= limit) return sum;
        size_t end = size - start > PNGC_SUM_BLOCK ? start + PNGC_SUM_BLOCK : size;
        uint32_t block = 0;
        for (size_t i = start; i < end; i++) {
            block += magnitude((uint8_t)(row[i] - predict(type, row[i - bpp], up[i], up[i - bpp])));
        }
        sum += block;
    }
    return sum;
}

/* out[i] = row[i] filtered with `type`. */
PNGC_INLINE void apply_filtered(int type, const uint8_t *row, const uint8_t *up, size_t size, size_t bpp,
                                uint8_t *restrict out) {
    size_t first = bpp < size ? bpp : size;
    for (size_t i = 0; i < first; i++) out[i] = (uint8_t)(row[i] - predict(type, 0, up[i], 0));
    for (size_t i = first; i < size; i++) out[i] = (uint8_t)(row[i] - predict(type, row[i - bpp], up[i], up[i - bpp]));
}

/* One out-of-line copy per type, so that each loop is compiled for its constant type. */
#define PNGC_FILTER_FUNCTIONS(name, type)                                                                      \
    static uint64_t sum_##name(const uint8_t *row, const uint8_t *up, size_t size, size_t bpp, uint64_t limit) { \
        return sum_filtered(type, row, up, size, bpp, limit);                                                  \
    }                                                                                                          \
    static void apply_##name(const uint8_t *row, const uint8_t *up, size_t size, size_t bpp, uint8_t *out) {   \
        apply_filtered(type, row, up, size, bpp, out);                                                         \
    }
PNGC_FILTER_FUNCTIONS(none, PNGC_FILTER_NONE)
PNGC_FILTER_FUNCTIONS(sub, PNGC_FILTER_SUB)
PNGC_FILTER_FUNCTIONS(up, PNGC_FILTER_UP)
PNGC_FILTER_FUNCTIONS(average, PNGC_FILTER_AVERAGE)
PNGC_FILTER_FUNCTIONS(paeth, PNGC_FILTER_PAETH)

typedef uint64_t (*sum_fn)(const uint8_t *, const uint8_t *, size_t, size_t, uint64_t);
typedef void (*apply_fn)(const uint8_t *, const uint8_t *, size_t, size_t, uint8_t *);

/* Indexed by filter type. Tried in this order; a later type must be strictly better to win (as in libpng). */
static const sum_fn sums[5] = {sum_none, sum_sub, sum_up, sum_average, sum_paeth};
static const apply_fn applies[5] = {apply_none, apply_sub, apply_up, apply_average, apply_paeth};

int pngc_filter_row(const uint8_t *row, const uint8_t *previous, size_t row_size, size_t pixel_size, int sub_only,
                    uint8_t *out) {
    int best = PNGC_FILTER_SUB;
    if (!sub_only) {
        uint64_t best_sum = UINT64_MAX;
        for (int type = PNGC_FILTER_NONE; type <= PNGC_FILTER_PAETH; type++) {
            uint64_t sum = sums[type](row, previous, row_size, pixel_size, best_sum);
            if (sum < best_sum) {
                best_sum = sum;
                best = type;
            }
        }
    }
    out[0] = (uint8_t)best;
    if (best == PNGC_FILTER_NONE) {
        memcpy(out + 1, row, row_size);
    } else {
        applies[best](row, previous, row_size, pixel_size, out + 1);
    }
    return best;
}
