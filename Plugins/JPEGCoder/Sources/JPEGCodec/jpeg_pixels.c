/* JPEGCodec: writing decoded rows into the host's RGBA8 buffer — Exif orientation applied on the way (so no second
 * full-size buffer is needed) and CMYK converted to RGB. */
#include "jpeg_codec_internal.h"

#include <string.h>

jpegc_row_target jpegc_row_target_for(uint8_t *pixels, size_t stride, uint32_t out_width, uint32_t out_height,
                                      int32_t orientation, uint32_t y) {
    /* Stored pixel (x, y) goes to displayed (dx, dy); for 5-8 the output is the stored size transposed.
     *   1 (x, y)   2 (W-1-x, y)   3 (W-1-x, H-1-y)   4 (x, H-1-y)
     *   5 (y, x)   6 (W-1-y, x)   7 (W-1-y, H-1-x)   8 (y, H-1-x)    with W, H the output size. */
    const ptrdiff_t pixel = 4, row = (ptrdiff_t)stride;
    size_t last_x = out_width - 1, last_y = out_height - 1;
    jpegc_row_target target;
    switch (orientation) {
    case 2: target.start = pixels + y * stride + last_x * 4; target.step = -pixel; break;
    case 3: target.start = pixels + (last_y - y) * stride + last_x * 4; target.step = -pixel; break;
    case 4: target.start = pixels + (last_y - y) * stride; target.step = pixel; break;
    case 5: target.start = pixels + (size_t)y * 4; target.step = row; break;
    case 6: target.start = pixels + (last_x - y) * 4; target.step = row; break;
    case 7: target.start = pixels + last_y * stride + (last_x - y) * 4; target.step = -row; break;
    case 8: target.start = pixels + last_y * stride + (size_t)y * 4; target.step = -row; break;
    default: target.start = pixels + y * stride; target.step = pixel; break;
    }
    return target;
}

void jpegc_place_rgba_row(const uint8_t *row, uint32_t width, jpegc_row_target target) {
    if (target.step == 4) {
        memcpy(target.start, row, (size_t)width * 4);
        return;
    }
    uint8_t *out = target.start;
    for (uint32_t x = 0; x < width; x++, row += 4, out += target.step) memcpy(out, row, 4);
}

/* a * b / 255, rounded. */
static inline uint8_t multiply255(unsigned a, unsigned b) {
    unsigned t = a * b + 128;
    return (uint8_t)((t + (t >> 8)) >> 8);
}

void jpegc_place_cmyk_row(const uint8_t *row, uint32_t width, int inverted, jpegc_row_target target) {
    /* Naive CMYK -> RGB without a profile: R = (1 - C)(1 - K). Adobe (Photoshop) files store every sample inverted,
     * so there R = C'K' with the stored values. */
    uint8_t *out = target.start;
    for (uint32_t x = 0; x < width; x++, row += 4, out += target.step) {
        unsigned c = row[0], m = row[1], yy = row[2], k = row[3];
        if (!inverted) {
            c = 255 - c;
            m = 255 - m;
            yy = 255 - yy;
            k = 255 - k;
        }
        out[0] = multiply255(c, k);
        out[1] = multiply255(m, k);
        out[2] = multiply255(yy, k);
        out[3] = 255;
    }
}
