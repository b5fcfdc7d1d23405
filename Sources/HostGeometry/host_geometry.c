#include "host_geometry.h"

static uint32_t round_dimension(double v) {
    if (v < 1.0) return 1;
    if (v > 4294967295.0) return 4294967295u;
    return (uint32_t)(v + 0.5);
}

static void set(ip_placement *p, uint32_t width, uint32_t height, double sx, double sy, double ox, double oy) {
    p->struct_size = sizeof(ip_placement);
    p->out_width = width;
    p->out_height = height;
    p->scale_x = sx;
    p->scale_y = sy;
    p->offset_x = ox;
    p->offset_y = oy;
}

void host_geometry_place(double src_w, double src_h, uint32_t req_w, uint32_t req_h, ip_scale_mode mode,
                         int allow_upscale, ip_placement *p) {
    double sx, sy, s;
    uint32_t w, h;
    if (!(src_w > 0.0)) src_w = 1.0;
    if (!(src_h > 0.0)) src_h = 1.0;
    if (req_w == 0 && req_h == 0) {
        w = round_dimension(src_w);
        h = round_dimension(src_h);
        set(p, w, h, w / src_w, h / src_h, 0.0, 0.0);
        return;
    }
    if (req_w == 0 || req_h == 0) {
        /* One side given: the other follows the aspect ratio, whatever the mode. */
        s = req_w ? (double)req_w / src_w : (double)req_h / src_h;
        if (!allow_upscale && s > 1.0) {
            w = round_dimension(src_w);
            h = round_dimension(src_h);
        } else if (req_w) {
            w = req_w;
            h = round_dimension(src_h * s);
        } else {
            w = round_dimension(src_w * s);
            h = req_h;
        }
        set(p, w, h, w / src_w, h / src_h, 0.0, 0.0);
        return;
    }
    sx = (double)req_w / src_w;
    sy = (double)req_h / src_h;
    if (mode == IP_SCALE_FILL) {
        set(p, req_w, req_h, sx, sy, 0.0, 0.0);
        return;
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
        w = round_dimension(bw);
        h = round_dimension(bh);
        set(p, w, h, s, s, (w - src_w * s) / 2.0, (h - src_h * s) / 2.0);
        return;
    }
    s = sx < sy ? sx : sy;
    if (!allow_upscale && s > 1.0) s = 1.0;
    w = round_dimension(src_w * s);
    h = round_dimension(src_h * s);
    set(p, w, h, w / src_w, h / src_h, 0.0, 0.0);
}
