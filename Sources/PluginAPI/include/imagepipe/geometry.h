/* imagepipe plugin ABI — the one definition of fit / fill / aspect-fill.
 *
 * Shared as inline code so that every coder that renders at size (vector coders, shrink-on-load) and the host's
 * bitmap resampler compute exactly the same output size and crop from the same request.
 */
#ifndef IMAGEPIPE_GEOMETRY_H
#define IMAGEPIPE_GEOMETRY_H

#include <stdint.h>
#include "options.h"
#include "export.h"

IP_EXTERN_C_BEGIN

/* Where the source is drawn on an output of out_width x out_height: scale each axis, then translate.
 * For aspect-fill the drawn source is larger than the output and centred (the overflow is cropped). */
typedef struct ip_placement {
    uint32_t out_width;
    uint32_t out_height;
    double scale_x;
    double scale_y;
    double offset_x;
    double offset_y;
} ip_placement;

static inline uint32_t ip_round_dimension(double v) {
    if (v < 1.0) return 1;
    if (v > 4294967295.0) return 4294967295u;
    return (uint32_t)(v + 0.5);
}

/* Computes the output size and placement of a source of src_w x src_h (> 0) for a requested box.
 * req_w / req_h of 0 means "derived from the other side keeping the aspect ratio"; both 0 means intrinsic size.
 * Without IP_DECODE_ALLOW_UPSCALE, fit and aspect-fill never produce an output larger than the source:
 * a box larger than the source yields the intrinsic size (fit) or the largest crop of the box's aspect (aspect-fill).
 * fill stretches to exactly the box (upscaling too, since the caller asked for those exact pixels). */
static inline ip_placement ip_place(double src_w, double src_h, uint32_t req_w, uint32_t req_h,
                                    ip_scale_mode mode, int allow_upscale) {
    ip_placement p;
    double sx, sy, s;
    if (src_w <= 0.0) src_w = 1.0;
    if (src_h <= 0.0) src_h = 1.0;
    if (req_w == 0 && req_h == 0) {
        p.out_width = ip_round_dimension(src_w);
        p.out_height = ip_round_dimension(src_h);
        p.scale_x = p.out_width / src_w;
        p.scale_y = p.out_height / src_h;
        p.offset_x = 0.0;
        p.offset_y = 0.0;
        return p;
    }
    if (req_w == 0 || req_h == 0) {
        /* One side given: the other follows the aspect ratio, whatever the mode. */
        s = req_w ? (double)req_w / src_w : (double)req_h / src_h;
        if (!allow_upscale && s > 1.0) {
            p.out_width = ip_round_dimension(src_w);
            p.out_height = ip_round_dimension(src_h);
        } else if (req_w) {
            p.out_width = req_w;
            p.out_height = ip_round_dimension(src_h * s);
        } else {
            p.out_width = ip_round_dimension(src_w * s);
            p.out_height = req_h;
        }
        p.scale_x = p.out_width / src_w;
        p.scale_y = p.out_height / src_h;
        p.offset_x = 0.0;
        p.offset_y = 0.0;
        return p;
    }
    sx = (double)req_w / src_w;
    sy = (double)req_h / src_h;
    if (mode == IP_SCALE_FILL) {
        p.out_width = req_w;
        p.out_height = req_h;
        p.scale_x = sx;
        p.scale_y = sy;
        p.offset_x = 0.0;
        p.offset_y = 0.0;
        return p;
    }
    if (mode == IP_SCALE_ASPECT_FILL) {
        double bw = req_w, bh = req_h;
        s = sx > sy ? sx : sy;
        if (!allow_upscale && s > 1.0) {
            /* Shrink the box to the largest box of the same aspect that fits inside the source. */
            double k = (src_w / bw < src_h / bh) ? src_w / bw : src_h / bh;
            bw = bw * k;
            bh = bh * k;
            s = 1.0;
        }
        p.out_width = ip_round_dimension(bw);
        p.out_height = ip_round_dimension(bh);
        p.scale_x = s;
        p.scale_y = s;
        p.offset_x = (p.out_width - src_w * s) / 2.0;
        p.offset_y = (p.out_height - src_h * s) / 2.0;
        return p;
    }
    s = sx < sy ? sx : sy;
    if (!allow_upscale && s > 1.0) s = 1.0;
    p.out_width = ip_round_dimension(src_w * s);
    p.out_height = ip_round_dimension(src_h * s);
    p.scale_x = p.out_width / src_w;
    p.scale_y = p.out_height / src_h;
    p.offset_x = 0.0;
    p.offset_y = 0.0;
    return p;
}

IP_EXTERN_C_END

#endif
