/* PNGCodec: writing a PNG into the host's byte sink. */
#include "png_codec_internal.h"

#include <stdlib.h>
#include <string.h>

#define PNGC_CANCEL_INTERVAL 16u

/* One write session, heap-allocated so that its fields survive png_error's longjmp (see png_read.c). */
typedef struct pngc_writer {
    png_structp png;
    png_infop info;
    pngc_errors errors;
    const pngc_encode_params *params;
    /* One converted output row (RGB or RGBA, 8 or big-endian 16 bits). */
    uint8_t *row;
    /* Non-OK once the sink refused bytes; the session then ends with this status. */
    ip_status sink_status;
} pngc_writer;

static void write_to_sink(png_structp png, png_bytep data, size_t length) {
    pngc_writer *writer = (pngc_writer *)png_get_io_ptr(png);
    const ip_byte_sink *sink = writer->params->sink;
    ip_status status = sink->write(sink->context, data, length);
    if (status != IP_STATUS_OK) {
        writer->sink_status = status;
        png_error(png, "the output sink refused the bytes");
    }
}

static void flush_sink(png_structp png) { (void)png; }

static void writer_destroy(pngc_writer *writer) {
    png_destroy_write_struct(writer->png != NULL ? &writer->png : NULL, writer->info != NULL ? &writer->info : NULL);
    free(writer->row);
    free(writer);
}

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

/* Converts source row y into writer->row in the output layout. */
static void convert_row(pngc_writer *writer, uint32_t y) {
    const pngc_encode_params *p = writer->params;
    const uint8_t *source = p->pixels + (size_t)y * p->stride;
    uint32_t in_max = p->input16 ? 65535u : 255u;
    size_t in_size = p->input16 ? 2u : 1u;
    int channels = p->write_alpha ? 4 : 3;
    uint8_t *out = writer->row;
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

static ip_status check_params(const pngc_encode_params *p, ip_message message) {
    if (p == NULL || p->pixels == NULL || p->sink == NULL || p->sink->write == NULL) {
        pngc_message(message, "pngc_encode: missing pixels or sink");
        return IP_STATUS_INTERNAL;
    }
    if (p->width == 0 || p->height == 0 || p->width > PNG_UINT_31_MAX || p->height > PNG_UINT_31_MAX) {
        pngc_message(message, "PNG cannot hold a %ux%u image", p->width, p->height);
        return IP_STATUS_INVALID_DATA;
    }
    if (p->stride < (size_t)p->width * (p->input16 ? 8u : 4u)) {
        pngc_message(message, "stride %zu is too small for %u pixels", p->stride, p->width);
        return IP_STATUS_INVALID_DATA;
    }
    return IP_STATUS_OK;
}

ip_status pngc_encode(const pngc_encode_params *params, ip_message message) {
    ip_status status = check_params(params, message);
    if (status != IP_STATUS_OK) return status;
    pngc_writer *writer = calloc(1, sizeof *writer);
    size_t row_size = (size_t)params->width * (params->write_alpha ? 4u : 3u) * (params->output16 ? 2u : 1u);
    if (writer != NULL) writer->row = malloc(row_size);
    if (writer != NULL && writer->row != NULL) {
        writer->params = params;
        writer->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &writer->errors, pngc_on_error, pngc_on_warning);
        if (writer->png != NULL) writer->info = png_create_info_struct(writer->png);
    }
    if (writer == NULL || writer->row == NULL || writer->png == NULL || writer->info == NULL) {
        if (writer != NULL) writer_destroy(writer);
        pngc_message(message, "cannot create libpng's writer (out of memory)");
        return IP_STATUS_NO_MEMORY;
    }
    if (setjmp(png_jmpbuf(writer->png))) {
        if (writer->sink_status != IP_STATUS_OK) {
            status = writer->sink_status;
            pngc_message(message, "the output refused the PNG bytes (status %d)", (int)status);
        } else {
            status = pngc_status_for_libpng_error(writer->errors.text);
            if (status == IP_STATUS_INVALID_DATA) status = IP_STATUS_INTERNAL;
            pngc_message(message, "libpng could not write the PNG: %s", writer->errors.text);
        }
        writer_destroy(writer);
        return status;
    }
    png_set_write_fn(writer->png, writer, write_to_sink, flush_sink);
    png_set_IHDR(writer->png, writer->info, params->width, params->height, params->output16 ? 16 : 8,
                 params->write_alpha ? PNG_COLOR_TYPE_RGBA : PNG_COLOR_TYPE_RGB,
                 params->interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    int level = params->compression_level;
    png_set_compression_level(writer->png, level < 0 ? 0 : level > 9 ? 9 : level);
    if (params->fast_filters) png_set_filter(writer->png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
    /* Fewer, larger IDAT chunks: fewer calls into the host's sink. */
    png_set_compression_buffer_size(writer->png, 64u * 1024u);
    png_write_info(writer->png, writer->info);
    int passes = png_set_interlace_handling(writer->png);
    /* Interlaced output: libpng picks each pass's pixels out of full rows, so every pass sees every row. */
    for (int pass = 0; pass < passes; pass++) {
        for (uint32_t y = 0; y < params->height; y++) {
            if (y % PNGC_CANCEL_INTERVAL == 0 && params->cancelled != NULL && params->cancelled(params->cancel_context)) {
                pngc_message(message, "cancelled");
                writer_destroy(writer);
                return IP_STATUS_CANCELLED;
            }
            convert_row(writer, y);
            png_write_row(writer->png, writer->row);
        }
    }
    png_write_end(writer->png, writer->info);
    writer_destroy(writer);
    return IP_STATUS_OK;
}
