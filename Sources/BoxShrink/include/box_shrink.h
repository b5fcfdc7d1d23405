/* BoxShrink — area averages of k x k blocks, fed one source row at a time (shrink-on-load for raster decoders).
 *
 * Rationale: a decoder that produces rows (PNG, TIFF strips and tiles) can reduce while it reads, so a thumbnail
 * of a 12000 x 12000 image holds one reduced image and one row of sums instead of 576 MB of full-size pixels, as
 * libvips streams rows through its shrink. The blocks are the ones the host's resampler averages itself before its
 * Lanczos pass (ImageTransformers.Resize: width / k blocks, the last one absorbing the remainder; colour weighted by
 * alpha), so a reduced decode handed to the host ends in the same thumbnail as a full decode, up to the rounding of
 * the reduced image to its sample size.
 *
 * Linked into each plugin that uses it (a static C target): nothing of it crosses the plugin boundary.
 */
#ifndef BOX_SHRINK_H
#define BOX_SHRINK_H

#include <stddef.h>
#include <stdint.h>

typedef struct bxs_shrinker bxs_shrinker;

typedef struct bxs_layout {
    /* The source: width x height RGBA pixels, pushed top to bottom. */
    uint32_t width;
    uint32_t height;
    /* Block side k >= 1 (1 copies). */
    uint32_t factor;
    /* Non-zero: RGBA as native-endian uint16 in and out; zero: RGBA8. */
    int32_t sample16;
    /* Non-zero: alpha is straight, so colours are averaged weighted by their alpha (the premultiplied mean,
     * divided back); zero: every channel is averaged as it is (opaque or premultiplied sources). */
    int32_t straight_alpha;
    /* Where the reduced image goes: bxs_reduced(width) x bxs_reduced(height) pixels, `out_stride` bytes apart. */
    uint8_t *out;
    size_t out_stride;
} bxs_layout;

/* The reduced length of `dimension` for `factor`: dimension / factor, at least 1 (the last block absorbs the
 * remainder, so no source pixel is dropped). */
uint32_t bxs_reduced(uint32_t dimension, uint32_t factor);

/* NULL when the layout is unusable (zero sizes, no output) or memory is short. The sums are one reduced row of
 * 64-bit counters: 32 * bxs_reduced(width) bytes. */
bxs_shrinker *bxs_create(const bxs_layout *layout);

/* The next source row (layout.width RGBA pixels). Rows beyond layout.height are ignored. */
void bxs_push(bxs_shrinker *shrinker, const uint8_t *row);

/* Source rows pushed so far. */
uint32_t bxs_rows_pushed(const bxs_shrinker *shrinker);

/* NULL is ignored. */
void bxs_destroy(bxs_shrinker *shrinker);

#endif
