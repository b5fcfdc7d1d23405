/* PlaneShrink — area averages of k x k blocks of one sample plane (a Y, Cb, Cr or alpha plane).
 *
 * Rationale: a decoder that holds its image as planes before a colour conversion (AVIF: dav1d's YUV planes, then
 * libavif's YUV to RGB) can reduce the planes first and convert only the reduced image. The conversion is affine
 * in each pixel, so converting block averages gives the average of the converted blocks (up to rounding and the
 * clamping of out-of-range values), while a 12 MP thumbnail converts 1/k² of the pixels and never holds the
 * full-size RGBA image. The blocks are BoxShrink's (the host resampler's own blocks): width / k of them, the last
 * one absorbing the remainder.
 */
#ifndef PLANE_SHRINK_H
#define PLANE_SHRINK_H

#include <stddef.h>
#include <stdint.h>

typedef struct bxs_plane {
    /* width x height samples, rows `stride` bytes apart; uint8 samples, or native-endian uint16 when sample16. */
    uint8_t *samples;
    uint32_t width;
    uint32_t height;
    size_t stride;
} bxs_plane;

/* Averages `source` into `target` with blocks of `factor_x` x `factor_y` source samples: target sample (i, j) covers
 * source columns i*factor_x up to (i+1)*factor_x and rows j*factor_y up to (j+1)*factor_y, and the last column (row)
 * of the target reaches to the source's edge, so every source sample is counted once. Separate factors let a
 * subsampled chroma plane be reduced to the reduced luma's full size (4:2:0 with luma blocks of k: chroma blocks of
 * k/2 by k/2, target as large as the reduced luma), so the reduced image keeps its chroma at full resolution.
 * Averages are rounded to nearest.
 * Returns 0; -1 (nothing written) when a size or a factor is zero, a target block would start outside the source,
 * or memory for one row of sums is short. */
int bxs_reduce_plane(const bxs_plane *source, const bxs_plane *target, uint32_t factor_x, uint32_t factor_y, int sample16);

#endif
