/* BoxShrink: block sums of one reduced row, written out when the row's last source row arrives. */
#include "box_shrink.h"
#include "block_span.h"

#include <stdlib.h>
#include <string.h>

struct bxs_shrinker {
    bxs_layout layout;
    uint32_t reduced_width;
    uint32_t reduced_height;
    uint32_t pushed;
    /* Per reduced column: R, G, B (each weighted by alpha when straight), A. */
    uint64_t *sums;
};

uint32_t bxs_reduced(uint32_t dimension, uint32_t factor) {
    if (factor <= 1) return dimension;
    uint32_t reduced = dimension / factor;
    return reduced > 0 ? reduced : 1;
}

bxs_shrinker *bxs_create(const bxs_layout *layout) {
    if (layout == NULL || layout->width == 0 || layout->height == 0 || layout->factor == 0 || layout->out == NULL) return NULL;
    bxs_shrinker *shrinker = calloc(1, sizeof *shrinker);
    if (shrinker == NULL) return NULL;
    shrinker->layout = *layout;
    shrinker->reduced_width = bxs_reduced(layout->width, layout->factor);
    shrinker->reduced_height = bxs_reduced(layout->height, layout->factor);
    shrinker->sums = calloc((size_t)shrinker->reduced_width * 4u, sizeof(uint64_t));
    if (shrinker->sums == NULL) {
        free(shrinker);
        return NULL;
    }
    return shrinker;
}

void bxs_destroy(bxs_shrinker *shrinker) {
    if (shrinker == NULL) return;
    free(shrinker->sums);
    free(shrinker);
}

uint32_t bxs_rows_pushed(const bxs_shrinker *shrinker) { return shrinker->pushed; }

/* One past the last source column of reduced column j. */
static inline uint32_t block_end(const bxs_shrinker *s, uint32_t j) {
    return bxs_block_end(j, s->reduced_width, s->layout.width, s->layout.factor);
}

static void add_row8(bxs_shrinker *s, const uint8_t *row) {
    uint64_t *sum = s->sums;
    uint32_t x = 0;
    for (uint32_t j = 0; j < s->reduced_width; j++, sum += 4) {
        uint64_t r = 0, g = 0, b = 0, a = 0;
        uint32_t end = block_end(s, j);
        const uint8_t *p = row + (size_t)x * 4u;
        if (s->layout.straight_alpha) {
            for (; x < end; x++, p += 4) {
                uint32_t alpha = p[3];
                r += (uint32_t)p[0] * alpha; g += (uint32_t)p[1] * alpha; b += (uint32_t)p[2] * alpha; a += alpha;
            }
        } else {
            for (; x < end; x++, p += 4) { r += p[0]; g += p[1]; b += p[2]; a += p[3]; }
        }
        sum[0] += r; sum[1] += g; sum[2] += b; sum[3] += a;
    }
}

static void add_row16(bxs_shrinker *s, const uint8_t *bytes) {
    const uint16_t *row = (const uint16_t *)(const void *)bytes;
    uint64_t *sum = s->sums;
    uint32_t x = 0;
    for (uint32_t j = 0; j < s->reduced_width; j++, sum += 4) {
        uint64_t r = 0, g = 0, b = 0, a = 0;
        uint32_t end = block_end(s, j);
        const uint16_t *p = row + (size_t)x * 4u;
        if (s->layout.straight_alpha) {
            for (; x < end; x++, p += 4) {
                uint64_t alpha = p[3];
                r += p[0] * alpha; g += p[1] * alpha; b += p[2] * alpha; a += alpha;
            }
        } else {
            for (; x < end; x++, p += 4) { r += p[0]; g += p[1]; b += p[2]; a += p[3]; }
        }
        sum[0] += r; sum[1] += g; sum[2] += b; sum[3] += a;
    }
}

/* Writes reduced row `y` from the sums (averaged over `rows` source rows) and clears them. */
static void flush(bxs_shrinker *s, uint32_t y, uint32_t rows) {
    uint8_t *out = s->layout.out + (size_t)y * s->layout.out_stride;
    uint64_t *sum = s->sums;
    for (uint32_t j = 0; j < s->reduced_width; j++, sum += 4) {
        uint64_t count = (uint64_t)(block_end(s, j) - j * s->layout.factor) * rows;
        uint64_t value[4];
        value[3] = (sum[3] + count / 2) / count;
        for (int c = 0; c < 3; c++) {
            if (!s->layout.straight_alpha) value[c] = (sum[c] + count / 2) / count;
            else value[c] = sum[3] == 0 ? 0 : (sum[c] + sum[3] / 2) / sum[3];
        }
        if (s->layout.sample16) {
            uint16_t *p = (uint16_t *)(void *)(out + (size_t)j * 8u);
            for (int c = 0; c < 4; c++) p[c] = (uint16_t)(value[c] > 65535 ? 65535 : value[c]);
        } else {
            uint8_t *p = out + (size_t)j * 4u;
            for (int c = 0; c < 4; c++) p[c] = (uint8_t)(value[c] > 255 ? 255 : value[c]);
        }
        sum[0] = sum[1] = sum[2] = sum[3] = 0;
    }
}

void bxs_push(bxs_shrinker *s, const uint8_t *row) {
    if (s == NULL || row == NULL || s->pushed >= s->layout.height) return;
    uint32_t y = s->pushed++;
    if (s->layout.sample16) add_row16(s, row);
    else add_row8(s, row);
    uint32_t k = s->layout.factor;
    uint32_t reduced = y / k < s->reduced_height ? y / k : s->reduced_height - 1;
    uint32_t first = reduced * k;
    int last_of_block = reduced + 1 < s->reduced_height ? y + 1 == first + k : y + 1 == s->layout.height;
    if (last_of_block) flush(s, reduced, y + 1 - first);
}
