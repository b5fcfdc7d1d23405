/* PNGCodec: writing a PNG into the host's byte sink — the entry point, and the libpng writer used for Adam7
 * interlacing (png_write_fast.c writes everything else). */
#include "png_codec_internal.h"
#include "png_encode_internal.h"

#include <stdlib.h>

/* One write session, heap-allocated so that its fields survive png_error's longjmp (see png_read.c). */
typedef struct pngc_writer {
    png_structp png;
    png_infop info;
    pngc_errors errors;
    const pngc_encode_params *params;
    /* One converted output row (RGB or RGBA, 8 or big-endian 16 bits; see pngc_convert_row). */
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
    /* Adam7 needs each pass's pixels picked out of the rows: libpng does that; the fast writer does not. */
    return params->interlace ? pngc_encode_libpng(params, message) : pngc_encode_fast(params, message);
}

ip_status pngc_encode_libpng(const pngc_encode_params *params, ip_message message) {
    ip_status status = IP_STATUS_OK;
    pngc_writer *writer = calloc(1, sizeof *writer);
    size_t row_size = (size_t)params->width * pngc_output_pixel_size(params);
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
    if (params->icc_profile != NULL && params->icc_size > 0) {
        png_set_iCCP(writer->png, writer->info, "ICC profile", PNG_COMPRESSION_TYPE_BASE, params->icc_profile,
                     params->icc_size);
    }
    png_write_info(writer->png, writer->info);
    /* Written as they come (after IHDR and iCCP, before IDAT): the same bytes the fast writer writes. */
    if (params->exif != NULL && params->exif_size > 0) {
        png_write_chunk(writer->png, (png_const_bytep) "eXIf", params->exif, params->exif_size);
    }
    if (params->itxt != NULL && params->itxt_size > 0) {
        png_write_chunk(writer->png, (png_const_bytep) "iTXt", params->itxt, params->itxt_size);
    }
    int passes = png_set_interlace_handling(writer->png);
    /* Interlaced output: libpng picks each pass's pixels out of full rows, so every pass sees every row. */
    for (int pass = 0; pass < passes; pass++) {
        for (uint32_t y = 0; y < params->height; y++) {
            if (y % PNGC_CANCEL_INTERVAL == 0 && params->cancelled != NULL && params->cancelled(params->cancel_context)) {
                pngc_message(message, "cancelled");
                writer_destroy(writer);
                return IP_STATUS_CANCELLED;
            }
            pngc_convert_row(params, y, writer->row);
            png_write_row(writer->png, writer->row);
        }
    }
    png_write_end(writer->png, writer->info);
    writer_destroy(writer);
    return IP_STATUS_OK;
}
