/* PlaneShrink: source rows are added column by column into one row of 32-bit sums (a loop the compiler vectorises),
 * and each finished band of rows is then summed across its blocks once: per source sample one addition. */
#include "plane_shrink.h"
#include "block_span.h"

#include <stdlib.h>

int bxs_reduce_plane(const bxs_plane *source, const bxs_plane *target, uint32_t factor_x, uint32_t factor_y, int sample16) {
    if (source == NULL || target == NULL || source->samples == NULL || target->samples == NULL || factor_x == 0 || factor_y == 0)
        return -1;
    uint32_t width = source->width, height = source->height, out_width = target->width, out_height = target->height;
    if (width == 0 || height == 0 || out_width == 0 || out_height == 0) return -1;
    /* Every target block starts inside the source. */
    if ((uint64_t)(out_width - 1) * factor_x >= width || (uint64_t)(out_height - 1) * factor_y >= height) return -1;
    /* The column sums are 32-bit: the tallest band (the last one takes the remainder) must fit. */
    uint64_t last_rows = height - (uint64_t)(out_height - 1) * factor_y;
    uint64_t tallest = last_rows > factor_y ? last_rows : factor_y;
    if (tallest * (sample16 ? 65535u : 255u) > UINT32_MAX) return -1;
    uint32_t *columns = calloc(width, sizeof *columns);
    if (columns == NULL) return -1;
    for (uint32_t j = 0; j < out_height; j++) {
        uint32_t first = j * factor_y, end = bxs_block_end(j, out_height, height, factor_y);
        for (uint32_t y = first; y < end; y++) {
            const uint8_t *row = source->samples + (size_t)y * source->stride;
            if (sample16) {
                const uint16_t *samples = (const uint16_t *)(const void *)row;
                for (uint32_t x = 0; x < width; x++) columns[x] += samples[x];
            } else {
                for (uint32_t x = 0; x < width; x++) columns[x] += row[x];
            }
        }
        uint8_t *out = target->samples + (size_t)j * target->stride;
        uint32_t rows = end - first;
        for (uint32_t i = 0, x = 0; i < out_width; i++) {
            uint32_t stop = bxs_block_end(i, out_width, width, factor_x);
            uint64_t sum = 0, count = (uint64_t)(stop - x) * rows;
            for (; x < stop; x++) {
                sum += columns[x];
                columns[x] = 0;
            }
            uint64_t value = (sum + count / 2) / count;
            if (sample16) ((uint16_t *)(void *)out)[i] = (uint16_t)(value > 65535 ? 65535 : value);
            else out[i] = (uint8_t)(value > 255 ? 255 : value);
        }
    }
    free(columns);
    return 0;
}
