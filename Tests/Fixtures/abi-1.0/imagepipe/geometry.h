/* imagepipe plugin ABI — placement: the one definition of fit / fill / aspect-fill.
 *
 * The host computes it (ip_host.place) for every coder that renders at size (vector coders, shrink-on-load) and
 * for its own resampler, so all of them produce the same output size and crop from the same request. It used to
 * be inline code compiled into each side, where a fix would have made a new host and an old plugin disagree
 * silently.
 */
#ifndef IMAGEPIPE_GEOMETRY_H
#define IMAGEPIPE_GEOMETRY_H

#include <stdint.h>
#include "options.h"
#include "export.h"

IP_EXTERN_C_BEGIN

/* ip_place_request.flags */
/* Allow an output larger than the source for fit and aspect-fill (as IP_DECODE_ALLOW_UPSCALE). */
#define IP_PLACE_ALLOW_UPSCALE (1u << 0)

/* A source of source_width x source_height (> 0; fractional for vectors) and the requested box.
 * box_width / box_height of 0 mean "derived from the other side keeping the aspect ratio"; both 0 mean the
 * intrinsic size. Without IP_PLACE_ALLOW_UPSCALE, fit and aspect-fill never produce an output larger than the
 * source: a box larger than the source yields the intrinsic size (fit) or the largest crop of the box's aspect
 * (aspect-fill). Fill stretches to exactly the box (upscaling too: the caller asked for those exact pixels). */
typedef struct ip_place_request {
    uint32_t struct_size;
    double source_width;
    double source_height;
    uint32_t box_width;
    uint32_t box_height;
    ip_scale_mode mode;
    /* IP_PLACE_* bits. */
    uint32_t flags;
} ip_place_request;

/* Where the source is drawn on an output of out_width x out_height: scale each axis, then translate.
 * For aspect-fill the drawn source is larger than the output and centred (the overflow is cropped).
 * The caller sets struct_size; the host fills the fields that size covers. */
typedef struct ip_placement {
    uint32_t struct_size;
    uint32_t out_width;
    uint32_t out_height;
    double scale_x;
    double scale_y;
    double offset_x;
    double offset_y;
} ip_placement;

IP_EXTERN_C_END

#endif
