/* PNGCodec: source RGBA rows → PNG sample rows, shared by both writers so that they write the same samples. */
#include "png_encode_internal.h"

#include <string.h>

static inline uint32_t load16(const uint8_t *p) {
    uint16_t value;
    memcpy(&value, p, 2);
    return value;
}

/* Colour divided by alpha (both in 0..max), rounded and clamped: the inverse of premultiplication. */
static inline uint32_t unpremultiply(uint32_t color, uint32_t alpha, uint32_t max) {
    if (alpha == 0) return 0;
    if (alpha == max) return color;
    uint32_t value = (uint32_t)(((uint64_t)color * max + alpha / 2) / alpha);
    return value > max ? max : value;
}

/* Any depth, channel count and alpha mode, one sample at a time. */
static void convert_general(const pngc_encode_params *p, const uint8_t *source, uint8_t *out) {
    uint32_t in_max = p->input16 ? 65535u : 255u;
    size_t in_size = p->input16 ? 2u : 1u;
    int channels = p->write_alpha ? 4 : 3;
    for (uint32_t x = 0; x < p->width; x++) {
        uint32_t rgba[4];
        for (int c = 0; c < 4; c++) {
            const uint8_t *sample = source + ((size_t)x * 4 + (size_t)c) * in_size;
            rgba[c] = p->input16 ? load16(sample) : *sample;
        }
        if (p->premultiplied && p->write_alpha) {
            for (int c = 0; c < 3; c++) rgba[c] = unpremultiply(rgba[c], rgba[3], in_max);
        }
        for (int c = 0; c < channels; c++) {
            uint32_t v = rgba[c];
            if (p->output16) {
                if (!p->input16) v *= 257u;
                *out++ = (uint8_t)(v >> 8);
                *out++ = (uint8_t)(v & 0xFF);
            } else {
                if (p->input16) v = (v * 255u + 32767u) / 65535u;
                *out++ = (uint8_t)v;
            }
        }
    }
}

/* 8-bit straight (or opaque) RGBA in, 8-bit out: each output row is a copy of the source row, or a copy that
 * drops every 4th byte. The per-sample loop above would cost milliseconds per 4 Mpixel image for nothing. */
static int is_plain_8bit(const pngc_encode_params *p) {
    return !p->input16 && !p->output16 && !(p->premultiplied && p->write_alpha);
}

void pngc_convert_row(const pngc_encode_params *p, uint32_t y, uint8_t *out) {
    const uint8_t *source = p->pixels + (size_t)y * p->stride;
    if (!is_plain_8bit(p)) {
        convert_general(p, source, out);
    } else if (p->write_alpha) {
        memcpy(out, source, (size_t)p->width * 4u);
    } else {
        for (uint32_t x = 0; x < p->width; x++) {
            out[0] = source[0];
            out[1] = source[1];
            out[2] = source[2];
            out += 3;
            source += 4;
        }
    }
}

const uint8_t *pngc_output_row(const pngc_encode_params *p, uint32_t y, uint8_t *scratch) {
    if (is_plain_8bit(p) && p->write_alpha) return p->pixels + (size_t)y * p->stride;
    pngc_convert_row(p, y, scratch);
    return scratch;
}
