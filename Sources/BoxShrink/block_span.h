/* The one rule for where BoxShrink's blocks end, shared by the row shrinker and the plane reducer: block i of a
 * dimension of `source` samples reduced to `reduced` blocks of `factor` ends at (i + 1) * factor, and the last block
 * reaches to the source's edge (it absorbs the remainder), so no sample is dropped. */
#ifndef BXS_BLOCK_SPAN_H
#define BXS_BLOCK_SPAN_H

#include <stdint.h>

/* One past the last source index of block `i`. */
static inline uint32_t bxs_block_end(uint32_t i, uint32_t reduced, uint32_t source, uint32_t factor) {
    if (i + 1 == reduced) return source;
    uint32_t end = (i + 1) * factor;
    return end < source ? end : source;
}

#endif
