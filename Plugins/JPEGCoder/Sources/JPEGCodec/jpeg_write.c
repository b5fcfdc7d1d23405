/* JPEGCodec: encoding RGBA rows as a JFIF YCbCr JPEG into the host's byte sink. */
#include "jpeg_codec_internal.h"

#include <stdlib.h>
#include <string.h>

/* Bytes handed to the sink at a time. */
#define JPEGC_SINK_CHUNK 65536u

/* One compression session, heap-allocated for the same longjmp reason as jpegc_reader. */
typedef struct jpegc_writer {
    struct jpeg_compress_struct cinfo;
    jpegc_errors errors;
    struct jpeg_destination_mgr destination;
    const ip_byte_sink *sink;
    JOCTET buffer[JPEGC_SINK_CHUNK];
} jpegc_writer;

static jpegc_writer *writer_of(j_compress_ptr cinfo) {
    /* cinfo is the first member of jpegc_writer. */
    return (jpegc_writer *)(void *)cinfo;
}

/* Hands `count` buffered bytes to the sink; a sink error ends the session with the sink's status. */
static void flush(jpegc_writer *writer, size_t count) {
    if (count == 0) return;
    ip_status status = writer->sink->write(writer->sink->context, writer->buffer, count);
    if (status != IP_STATUS_OK) {
        jpegc_raise(&writer->errors, status, "the output sink refused %zu bytes (status %d)", count, (int)status);
    }
}

static void destination_init(j_compress_ptr cinfo) {
    jpegc_writer *writer = writer_of(cinfo);
    writer->destination.next_output_byte = writer->buffer;
    writer->destination.free_in_buffer = JPEGC_SINK_CHUNK;
}

static boolean destination_empty(j_compress_ptr cinfo) {
    /* libjpeg calls this with the whole buffer full (free_in_buffer is not reliable here). */
    jpegc_writer *writer = writer_of(cinfo);
    flush(writer, JPEGC_SINK_CHUNK);
    destination_init(cinfo);
    return TRUE;
}

static void destination_term(j_compress_ptr cinfo) {
    jpegc_writer *writer = writer_of(cinfo);
    flush(writer, JPEGC_SINK_CHUNK - writer->destination.free_in_buffer);
}

static inline uint8_t unpremultiply(unsigned value, unsigned alpha, unsigned max) {
    if (alpha == 0) return 0;
    unsigned v = (value * max + alpha / 2) / alpha;
    return (uint8_t)(v > max ? max : v);
}

/* One source row (RGBA8 or native RGBA16, straight or premultiplied) to packed 8-bit RGB; alpha is dropped. */
static void convert_row(const jpegc_encode_params *params, const uint8_t *source, JSAMPLE *out) {
    if (!params->input16) {
        for (uint32_t x = 0; x < params->width; x++, source += 4, out += 3) {
            if (params->premultiplied && source[3] != 255) {
                out[0] = unpremultiply(source[0], source[3], 255);
                out[1] = unpremultiply(source[1], source[3], 255);
                out[2] = unpremultiply(source[2], source[3], 255);
            } else {
                out[0] = source[0];
                out[1] = source[1];
                out[2] = source[2];
            }
        }
        return;
    }
    const uint16_t *wide = (const uint16_t *)(const void *)source;
    for (uint32_t x = 0; x < params->width; x++, wide += 4, out += 3) {
        for (int c = 0; c < 3; c++) {
            unsigned v = wide[c];
            if (params->premultiplied && wide[3] != 65535) {
                v = wide[3] == 0 ? 0 : (unsigned)(((uint64_t)v * 65535u + wide[3] / 2) / wide[3]);
                if (v > 65535) v = 65535;
            }
            out[c] = (JSAMPLE)((v * 255u + 32767u) / 65535u); /* round to nearest */
        }
    }
}

/* APP1 segments right after JFIF's APP0, where readers (libjpeg's, Exif's, XMP's) look: one jpeg_write_m_header
 * and its bytes each, so the signature and the block need no joined copy. Sizes were checked by the caller. */
static void write_metadata(j_compress_ptr cinfo, const jpegc_encode_params *params) {
    static const char exif_signature[6] = {'E', 'x', 'i', 'f', 0, 0};
    static const char xmp_signature[] = "http://ns.adobe.com/xap/1.0/"; /* 28 characters and the NUL: 29 */
    if (params->exif != NULL && params->exif_size > 0) {
        jpeg_write_m_header(cinfo, JPEG_APP0 + 1, sizeof exif_signature + params->exif_size);
        for (size_t i = 0; i < sizeof exif_signature; i++) jpeg_write_m_byte(cinfo, exif_signature[i]);
        for (uint32_t i = 0; i < params->exif_size; i++) jpeg_write_m_byte(cinfo, params->exif[i]);
    }
    if (params->xmp != NULL && params->xmp_size > 0) {
        jpeg_write_m_header(cinfo, JPEG_APP0 + 1, sizeof xmp_signature + params->xmp_size);
        for (size_t i = 0; i < sizeof xmp_signature; i++) jpeg_write_m_byte(cinfo, xmp_signature[i]);
        for (uint32_t i = 0; i < params->xmp_size; i++) jpeg_write_m_byte(cinfo, params->xmp[i]);
    }
}

ip_status jpegc_encode(const jpegc_encode_params *params, ip_message message) {
    if (params == NULL || params->pixels == NULL || params->sink == NULL || params->sink->write == NULL) {
        jpegc_message(message, "jpegc_encode: missing pixels or sink");
        return IP_STATUS_INTERNAL;
    }
    if (params->width == 0 || params->height == 0 || params->width > JPEG_MAX_DIMENSION ||
        params->height > JPEG_MAX_DIMENSION) {
        jpegc_message(message, "JPEG cannot hold a %ux%u image (1..%ld pixels a side)", params->width, params->height,
                      (long)JPEG_MAX_DIMENSION);
        return IP_STATUS_INVALID_DATA;
    }
    if ((params->exif != NULL && params->exif_size > JPEGC_MAX_EXIF_BYTES) ||
        (params->xmp != NULL && params->xmp_size > JPEGC_MAX_XMP_BYTES)) {
        jpegc_message(message, "an Exif block of %u or XMP packet of %u bytes does not fit one APP1 segment",
                      params->exif_size, params->xmp_size);
        return IP_STATUS_INVALID_DATA;
    }
    if (params->stride < (size_t)params->width * (params->input16 ? 8u : 4u)) {
        jpegc_message(message, "stride %zu is smaller than a row of %u pixels", params->stride, params->width);
        return IP_STATUS_INVALID_DATA;
    }
    jpegc_writer *writer = calloc(1, sizeof *writer);
    if (writer == NULL) {
        jpegc_message(message, "out of memory");
        return IP_STATUS_NO_MEMORY;
    }
    writer->sink = params->sink;
    jpegc_install_error_manager(&writer->errors);
    writer->cinfo.err = &writer->errors.pub;
    if (setjmp(writer->errors.jump)) {
        ip_status status = writer->errors.raised != 0 ? writer->errors.raised : IP_STATUS_INTERNAL;
        jpegc_message(message, "%s%s", writer->errors.raised != 0 ? "" : "libjpeg failed: ", writer->errors.text);
        jpeg_destroy_compress(&writer->cinfo);
        free(writer);
        return status;
    }
    j_compress_ptr cinfo = &writer->cinfo;
    jpeg_create_compress(cinfo);
    writer->destination.init_destination = destination_init;
    writer->destination.empty_output_buffer = destination_empty;
    writer->destination.term_destination = destination_term;
    cinfo->dest = &writer->destination;
    cinfo->image_width = params->width;
    cinfo->image_height = params->height;
    cinfo->input_components = 3;
    cinfo->in_color_space = JCS_RGB;
    jpeg_set_defaults(cinfo); /* JFIF, YCbCr, 4:2:0 */
    int quality = params->quality < 1 ? 1 : params->quality > 100 ? 100 : params->quality;
    jpeg_set_quality(cinfo, quality, TRUE);
    if (params->full_chroma) {
        cinfo->comp_info[0].h_samp_factor = 1;
        cinfo->comp_info[0].v_samp_factor = 1;
    }
    cinfo->dct_method = JDCT_ISLOW;
    cinfo->optimize_coding = params->optimize_coding ? TRUE : FALSE;
    if (params->progressive) jpeg_simple_progression(cinfo);
    JSAMPARRAY row = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE, params->width * 3, 1);
    jpeg_start_compress(cinfo, TRUE);
    write_metadata(cinfo, params);
    if (params->icc_profile != NULL && params->icc_size > 0) {
        jpeg_write_icc_profile(cinfo, params->icc_profile, params->icc_size);
    }
    while (cinfo->next_scanline < cinfo->image_height) {
        uint32_t y = cinfo->next_scanline;
        if (y % 16 == 0 && params->cancelled != NULL && params->cancelled(params->cancel_context)) {
            jpegc_raise(&writer->errors, IP_STATUS_CANCELLED, "cancelled");
        }
        convert_row(params, params->pixels + (size_t)y * params->stride, row[0]);
        jpeg_write_scanlines(cinfo, row, 1);
    }
    jpeg_finish_compress(cinfo);
    jpeg_destroy_compress(cinfo);
    free(writer);
    return IP_STATUS_OK;
}
