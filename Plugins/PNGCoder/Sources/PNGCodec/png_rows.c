/* The direct row path of decode_rows (png_read.c): rows that need none of libpng's transforms but the layout change
 * to RGBA, converted here straight from the inflated, unfiltered rows. libpng would copy each row out of a stored
 * deflate block, then make passes over it (16 to 8 bits, gray to RGB, the alpha filler, the byte swap): 15 % of a
 * 1600x1200 16-bit thumbnail (perf), where one fused pass does the same arithmetic. The results are libpng's bit
 * for bit (PNGDecodeTests compare every layout with ImageMagick at 8 and 16 bits, on this path and on libpng's). */
#include "png_codec_internal.h"

#include <box_shrink.h>

#include <string.h>

/* libpng's png_do_scale_16_to_8: the 16-bit value v = hi * 256 + lo to round(v * 255 / 65535), exactly. */
static inline uint8_t scale16(const uint8_t *sample) {
    int32_t hi = sample[0];
    return (uint8_t)(hi + ((((int32_t)sample[1] - hi + 128) * 65535) >> 24));
}

static inline uint16_t load16(const uint8_t *sample) { return (uint16_t)((sample[0] << 8) | sample[1]); }

int pngc_rows_are_direct(const pngc_stored_layout *layout, const uint8_t *raw, size_t raw_size, uint32_t height, int interlaced) {
    int color_type = layout->color_type, bit_depth = layout->bit_depth;
    if (layout->has_trns || interlaced || (bit_depth != 8 && bit_depth != 16)) return 0;
    if (color_type != 0 && color_type != 2 && color_type != 4 && color_type != 6) return 0;
    if (raw_size != layout->row_stride * height) return 0;
    for (uint32_t y = 0; y < height; y++) {
        if (raw[(size_t)y * layout->row_stride] != 0) return 0;
    }
    return 1;
}

/* One row (after its filter-type byte) to `width` RGBA pixels. */
static void convert_row(const uint8_t *row, uint32_t width, int color_type, int bit_depth, int output16, uint8_t *out) {
    int channels = color_type == 0 ? 1 : color_type == 4 ? 2 : color_type == 2 ? 3 : 4;
    if (bit_depth == 8 && !output16) {
        switch (channels) {
        case 4: memcpy(out, row, (size_t)width * 4u); return;
        case 3:
            for (uint32_t x = 0; x < width; x++, row += 3, out += 4) {
                out[0] = row[0]; out[1] = row[1]; out[2] = row[2]; out[3] = 0xFF;
            }
            return;
        case 2:
            for (uint32_t x = 0; x < width; x++, row += 2, out += 4) {
                out[0] = out[1] = out[2] = row[0]; out[3] = row[1];
            }
            return;
        default:
            for (uint32_t x = 0; x < width; x++, row += 1, out += 4) {
                out[0] = out[1] = out[2] = row[0]; out[3] = 0xFF;
            }
            return;
        }
    }
    if (bit_depth == 16 && !output16) {
        size_t step = (size_t)channels * 2u;
        for (uint32_t x = 0; x < width; x++, row += step, out += 4) {
            if (channels >= 3) {
                out[0] = scale16(row); out[1] = scale16(row + 2); out[2] = scale16(row + 4);
                out[3] = channels == 4 ? scale16(row + 6) : 0xFF;
            } else {
                out[0] = out[1] = out[2] = scale16(row);
                out[3] = channels == 2 ? scale16(row + 2) : 0xFF;
            }
        }
        return;
    }
    /* 16-bit output, native-endian: 16-bit samples swapped, 8-bit ones widened as libpng's expand_16 (v * 257). */
    uint16_t *wide = (uint16_t *)(void *)out;
    size_t size = bit_depth == 16 ? 2u : 1u, step = (size_t)channels * size;
    for (uint32_t x = 0; x < width; x++, row += step, wide += 4) {
        uint16_t s[4];
        for (int c = 0; c < channels; c++) s[c] = size == 2 ? load16(row + c * 2) : (uint16_t)(row[c] * 257u);
        if (channels >= 3) {
            wide[0] = s[0]; wide[1] = s[1]; wide[2] = s[2]; wide[3] = channels == 4 ? s[3] : 0xFFFF;
        } else {
            wide[0] = wide[1] = wide[2] = s[0]; wide[3] = channels == 2 ? s[1] : 0xFFFF;
        }
    }
}

ip_status pngc_convert_rows(const pngc_stored_layout *layout, const uint8_t *raw, const pngc_info *expected, int32_t output16,
                            uint8_t *pixels, size_t stride, struct bxs_shrinker *reduce, uint8_t *scratch,
                            pngc_cancel_fn cancelled, void *cancel_context, ip_message message) {
    for (uint32_t y = 0; y < expected->height; y++) {
        if (y % PNGC_CANCEL_INTERVAL == 0 && cancelled != NULL && cancelled(cancel_context)) {
            pngc_message(message, "cancelled");
            return IP_STATUS_CANCELLED;
        }
        uint8_t *out = reduce == NULL ? pixels + (size_t)y * stride : scratch;
        convert_row(raw + (size_t)y * layout->row_stride + 1, expected->width, layout->color_type, layout->bit_depth, output16, out);
        if (reduce != NULL) bxs_push(reduce, scratch);
    }
    return IP_STATUS_OK;
}
