/* JPEGCodec: reading a JPEG from memory — probe, full decode (with DCT scaling and orientation) and the
 * buffered-image preview of a partial download. */
#include "jpeg_codec_internal.h"

#include <string.h>

/* Rows between two cancellation checks of the row loop (the progress monitor also checks). */
#define JPEGC_ROW_CANCEL_INTERVAL 16u

static int32_t color_space_of(J_COLOR_SPACE space) {
    switch (space) {
    case JCS_GRAYSCALE: return JPEGC_COLOR_GRAY;
    case JCS_RGB: return JPEGC_COLOR_RGB;
    case JCS_YCbCr: return JPEGC_COLOR_YCBCR;
    case JCS_CMYK: return JPEGC_COLOR_CMYK;
    case JCS_YCCK: return JPEGC_COLOR_YCCK;
    default: return JPEGC_COLOR_UNKNOWN;
    }
}

/* "4:2:0" and friends from the sampling factors of a 3-component image whose two chroma components agree. */
static void describe_subsampling(const struct jpeg_decompress_struct *cinfo, char *text, size_t capacity) {
    text[0] = '\0';
    if (cinfo->num_components != 3 || cinfo->comp_info == NULL) return;
    const jpeg_component_info *c = cinfo->comp_info;
    if (c[1].h_samp_factor != c[2].h_samp_factor || c[1].v_samp_factor != c[2].v_samp_factor ||
        c[0].h_samp_factor % c[1].h_samp_factor != 0 || c[0].v_samp_factor % c[1].v_samp_factor != 0) {
        snprintf(text, capacity, "%dx%d,%dx%d,%dx%d", c[0].h_samp_factor, c[0].v_samp_factor, c[1].h_samp_factor,
                 c[1].v_samp_factor, c[2].h_samp_factor, c[2].v_samp_factor);
        return;
    }
    int h = c[0].h_samp_factor / c[1].h_samp_factor, v = c[0].v_samp_factor / c[1].v_samp_factor;
    const char *name = NULL;
    if (h == 1 && v == 1) name = "4:4:4";
    else if (h == 2 && v == 1) name = "4:2:2";
    else if (h == 2 && v == 2) name = "4:2:0";
    else if (h == 1 && v == 2) name = "4:4:0";
    else if (h == 4 && v == 1) name = "4:1:1";
    else if (h == 4 && v == 2) name = "4:1:0";
    if (name != NULL) snprintf(text, capacity, "%s", name);
    else snprintf(text, capacity, "%dx%d", h, v);
}

static void fill_info(const jpegc_reader *reader, jpegc_info *info) {
    const struct jpeg_decompress_struct *cinfo = &reader->cinfo;
    memset(info, 0, sizeof *info);
    info->width = cinfo->image_width;
    info->height = cinfo->image_height;
    info->components = cinfo->num_components;
    info->color_space = color_space_of(cinfo->jpeg_color_space);
    info->precision = cinfo->data_precision;
    info->decodable = 1;
    info->progressive = cinfo->progressive_mode != 0;
    info->arithmetic = cinfo->arith_code != 0;
    info->adobe_marker = cinfo->saw_Adobe_marker != 0;
    info->jfif = cinfo->saw_JFIF_marker != 0;
    info->orientation = reader->markers.orientation;
    info->has_exif = reader->markers.has_exif;
    info->icc_size = reader->markers.icc_size;
    describe_subsampling(cinfo, info->subsampling, sizeof info->subsampling);
    if (!cinfo->arith_code && cinfo->comp_info != NULL) {
        /* width/height_in_blocks were set by jpeg_read_header (jdinput.c initial_setup). */
        uint64_t blocks = 0;
        for (int i = 0; i < cinfo->num_components; i++) {
            blocks += (uint64_t)cinfo->comp_info[i].width_in_blocks * cinfo->comp_info[i].height_in_blocks;
        }
        info->minimum_size = blocks / 8;
    }
}

/* A 12-bit file or one over libjpeg's maximum size: libjpeg refused its header, so the facts come from the
 * marker walk. */
static void fill_info_from_markers(const jpegc_markers *markers, jpegc_info *info) {
    memset(info, 0, sizeof *info);
    info->width = markers->width;
    info->height = markers->height;
    info->components = markers->components;
    info->color_space = markers->components == 1 ? JPEGC_COLOR_GRAY
                        : markers->components == 3 ? JPEGC_COLOR_YCBCR
                        : markers->components == 4 ? (markers->adobe ? JPEGC_COLOR_YCCK : JPEGC_COLOR_CMYK)
                                                   : JPEGC_COLOR_UNKNOWN;
    info->precision = markers->precision;
    info->decodable = markers->precision == 8;
    info->progressive = markers->sof_marker == 0xC2 || markers->sof_marker == 0xC6 || markers->sof_marker == 0xCA ||
                        markers->sof_marker == 0xCE;
    info->arithmetic = markers->sof_marker >= 0xC9;
    info->adobe_marker = markers->adobe;
    info->jfif = markers->jfif;
    info->orientation = markers->orientation;
    info->has_exif = markers->has_exif;
    info->icc_size = markers->icc_size;
}

static ip_status check_input(const uint8_t *data, size_t size, ip_message message) {
    if (data == NULL || size == 0) {
        jpegc_message(message, "JPEG data is empty");
        return IP_STATUS_TRUNCATED;
    }
    if (data[0] != 0xFF || (size >= 2 && data[1] != 0xD8)) {
        jpegc_message(message, "not a JPEG file (no SOI marker)");
        return IP_STATUS_INVALID_DATA;
    }
    return IP_STATUS_OK;
}

ip_status jpegc_probe(const uint8_t *data, size_t size, jpegc_info *info, ip_message message) {
    ip_status status = check_input(data, size, message);
    if (status != IP_STATUS_OK) return status;
    jpegc_reader *reader = jpegc_reader_create(data, size, 0, 0, NULL, NULL);
    if (reader == NULL) {
        jpegc_message(message, "cannot create libjpeg's decompressor (out of memory)");
        return IP_STATUS_NO_MEMORY;
    }
    if (setjmp(reader->errors.jump)) {
        int code = reader->errors.pub.msg_code;
        if (reader->errors.raised == 0 && reader->markers.found_sof &&
            ((code == JERR_BAD_PRECISION && reader->markers.precision == 12) ||
             (code == JERR_IMAGE_TOO_BIG && reader->markers.precision == 8))) {
            /* Valid headers libjpeg refuses to go on with: report their facts; decoding says why it cannot. */
            fill_info_from_markers(&reader->markers, info);
            jpegc_reader_destroy(reader);
            return IP_STATUS_OK;
        }
        status = jpegc_reader_failure(reader, message);
        jpegc_reader_destroy(reader);
        return status;
    }
    jpeg_read_header(&reader->cinfo, TRUE);
    fill_info(reader, info);
    jpegc_reader_destroy(reader);
    return IP_STATUS_OK;
}

uint32_t jpegc_scaled_dimension(uint32_t dimension, int32_t scale_num) {
    if (scale_num < 1) scale_num = 1;
    if (scale_num > 8) scale_num = 8;
    return (uint32_t)(((uint64_t)dimension * (uint64_t)scale_num + 7) / 8);
}

/* Checks the parameters against what the header says and sets up the output. Runs inside the session's setjmp. */
static void configure_output(jpegc_reader *reader, const jpegc_decode_params *params) {
    j_decompress_ptr cinfo = &reader->cinfo;
    jpegc_errors *errors = &reader->errors;
    if (cinfo->image_width != params->expected->width || cinfo->image_height != params->expected->height) {
        jpegc_raise(errors, IP_STATUS_INTERNAL, "JPEG header changed between probe and decode");
    }
    cinfo->scale_num = (unsigned)(params->scale_num < 1 ? 1 : params->scale_num > 8 ? 8 : params->scale_num);
    cinfo->scale_denom = 8;
    cinfo->dct_method = JDCT_ISLOW; /* libjpeg's accurate default, as djpeg uses */
    cinfo->out_color_space =
        (cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK) ? JCS_CMYK : JCS_EXT_RGBA;
    jpeg_calc_output_dimensions(cinfo);
    int transposed = params->orientation >= 5 && params->orientation <= 8;
    uint32_t width = transposed ? cinfo->output_height : cinfo->output_width;
    uint32_t height = transposed ? cinfo->output_width : cinfo->output_height;
    if (width != params->out_width || height != params->out_height) {
        jpegc_raise(errors, IP_STATUS_INTERNAL, "libjpeg scales %ux%u by %d/8 to %ux%u, not the expected %ux%u",
                    cinfo->image_width, cinfo->image_height, params->scale_num, cinfo->output_width,
                    cinfo->output_height, params->out_width, params->out_height);
    }
}

/* Reads every output row into the host buffer, oriented. Runs inside the session's setjmp, after start. */
static void read_rows(jpegc_reader *reader, const jpegc_decode_params *params) {
    j_decompress_ptr cinfo = &reader->cinfo;
    int cmyk = cinfo->out_color_space == JCS_CMYK;
    int direct = !cmyk && (params->orientation <= 1 || params->orientation > 8);
    JSAMPARRAY scratch = NULL;
    JSAMPARRAY converted = NULL;
    if (!direct) {
        /* From libjpeg's image pool: freed with the session, also after a longjmp. */
        scratch = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE,
                                              cinfo->output_width * (JDIMENSION)cinfo->output_components, 1);
    }
    if (cmyk && params->cmyk_transform != NULL) {
        converted = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE, cinfo->output_width * 4, 1);
    }
    while (cinfo->output_scanline < cinfo->output_height) {
        uint32_t y = cinfo->output_scanline;
        if (y % JPEGC_ROW_CANCEL_INTERVAL == 0 && params->cancelled != NULL &&
            params->cancelled(params->cancel_context)) {
            jpegc_raise(&reader->errors, IP_STATUS_CANCELLED, "cancelled");
        }
        JSAMPROW row = direct ? params->pixels + (size_t)y * params->stride : scratch[0];
        if (jpeg_read_scanlines(cinfo, &row, 1) != 1) {
            jpegc_raise(&reader->errors, IP_STATUS_INTERNAL, "libjpeg returned no row %u", y);
        }
        if (direct) continue;
        jpegc_row_target target = jpegc_row_target_for(params->pixels, params->stride, params->out_width,
                                                       params->out_height, params->orientation, y);
        if (cmyk && converted != NULL) {
            jpegc_cmyk_transform_row(params->cmyk_transform, scratch[0], converted[0], cinfo->output_width);
            jpegc_place_rgba_row(converted[0], cinfo->output_width, target);
        } else if (cmyk) {
            jpegc_place_cmyk_row(scratch[0], cinfo->output_width, cinfo->saw_Adobe_marker, target);
        } else {
            jpegc_place_rgba_row(scratch[0], cinfo->output_width, target);
        }
    }
}

static ip_status check_params(const jpegc_decode_params *params, ip_message message) {
    if (params == NULL || params->expected == NULL || params->pixels == NULL) {
        jpegc_message(message, "jpegc_decode: missing header or pixel buffer");
        return IP_STATUS_INTERNAL;
    }
    if (params->stride < (size_t)params->out_width * 4) {
        jpegc_message(message, "jpegc_decode: stride %zu is smaller than a row of %u pixels", params->stride,
                      params->out_width);
        return IP_STATUS_INTERNAL;
    }
    if (!params->expected->decodable) {
        jpegc_message(message, "%d-bit JPEG is not supported: this libjpeg-turbo build decodes 8-bit samples only",
                      params->expected->precision);
        return IP_STATUS_UNSUPPORTED;
    }
    return check_input(params->data, params->size, message);
}

ip_status jpegc_decode(const jpegc_decode_params *params, ip_message message) {
    ip_status status = check_params(params, message);
    if (status != IP_STATUS_OK) return status;
    jpegc_reader *reader = jpegc_reader_create(params->data, params->size, params->max_memory, params->max_scans,
                                               params->cancelled, params->cancel_context);
    if (reader == NULL) {
        jpegc_message(message, "cannot create libjpeg's decompressor (out of memory)");
        return IP_STATUS_NO_MEMORY;
    }
    if (setjmp(reader->errors.jump)) {
        status = jpegc_reader_failure(reader, message);
        jpegc_reader_destroy(reader);
        return status;
    }
    j_decompress_ptr cinfo = &reader->cinfo;
    jpeg_read_header(cinfo, TRUE);
    configure_output(reader, params);
    /* For a progressive (multi-scan) file this reads every scan; the progress monitor caps their number. */
    jpeg_start_decompress(cinfo);
    read_rows(reader, params);
    /* Reads on to the EOI marker, so that a file cut anywhere (even just its EOI) reports "premature end". */
    jpeg_finish_decompress(cinfo);
    jpegc_reader_destroy(reader);
    return IP_STATUS_OK;
}

ip_status jpegc_decode_preview(const jpegc_decode_params *params, jpegc_preview_result *result, ip_message message) {
    ip_status status = check_params(params, message);
    if (status != IP_STATUS_OK) return status == IP_STATUS_TRUNCATED ? IP_STATUS_NEED_MORE : status;
    memset(result, 0, sizeof *result);
    jpegc_reader *reader = jpegc_reader_create(params->data, params->size, params->max_memory, params->max_scans,
                                               params->cancelled, params->cancel_context);
    if (reader == NULL) {
        jpegc_message(message, "cannot create libjpeg's decompressor (out of memory)");
        return IP_STATUS_NO_MEMORY;
    }
    reader->source.suspending = 1;
    if (setjmp(reader->errors.jump)) {
        status = jpegc_reader_failure(reader, message);
        jpegc_reader_destroy(reader);
        /* The data simply ended somewhere libjpeg could not suspend cleanly: wait for more. */
        return status == IP_STATUS_TRUNCATED ? IP_STATUS_NEED_MORE : status;
    }
    j_decompress_ptr cinfo = &reader->cinfo;
    if (jpeg_read_header(cinfo, TRUE) == JPEG_SUSPENDED) {
        jpegc_reader_destroy(reader);
        jpegc_message(message, "the JPEG header is not complete yet");
        return IP_STATUS_NEED_MORE;
    }
    configure_output(reader, params);
    /* libjpeg's arithmetic decoder cannot suspend (JERR_CANT_SUSPEND): such files (rare; browsers do not decode
     * them at all) get no partial preview. Without suspension the end of the data ends the session as TRUNCATED,
     * which becomes NEED_MORE below, until the whole file is there. */
    if (cinfo->arith_code) reader->source.suspending = 0;
    cinfo->buffered_image = TRUE;
    if (!jpeg_start_decompress(cinfo)) {
        jpegc_reader_destroy(reader);
        jpegc_message(message, "the first scan has not started yet");
        return IP_STATUS_NEED_MORE;
    }
    /* Take in every byte received; libjpeg suspends where the data ends. */
    for (unsigned calls = 0;; calls++) {
        if ((uint32_t)cinfo->input_scan_number > reader->progress.max_scans) {
            jpegc_raise(&reader->errors, IP_STATUS_LIMIT_EXCEEDED, "JPEG has more than %u scans",
                        reader->progress.max_scans);
        }
        if (calls % JPEGC_ROW_CANCEL_INTERVAL == 0 && params->cancelled != NULL &&
            params->cancelled(params->cancel_context)) {
            jpegc_raise(&reader->errors, IP_STATUS_CANCELLED, "cancelled");
        }
        int step = jpeg_consume_input(cinfo);
        if (step == JPEG_SUSPENDED) break;
        if (step == JPEG_REACHED_EOI) {
            result->complete = 1;
            result->scans_completed = cinfo->input_scan_number;
            break;
        }
        if (step == JPEG_SCAN_COMPLETED) result->scans_completed = cinfo->input_scan_number;
    }
    if (!result->complete) {
        int scan_done = result->scans_completed == cinfo->input_scan_number;
        result->rows_of_current_scan = scan_done ? 0 : (int32_t)cinfo->input_iMCU_row;
        int enough = cinfo->progressive_mode ? result->scans_completed >= 1
                                             : (result->scans_completed >= 1 || cinfo->input_iMCU_row >= 1);
        if (!enough) {
            jpegc_reader_destroy(reader);
            jpegc_message(message, "not enough of the first scan for a preview yet");
            return IP_STATUS_NEED_MORE;
        }
    }
    /* From here on, the end of the data reads as an EOI marker: the rest of the scan in progress decodes as "no
     * more coefficients", so its missing blocks keep what earlier scans gave them (mid-gray before the first).
     * Between scans, the partial marker segment libjpeg stopped in is dropped (the output pass may read ahead for
     * block smoothing and must then find EOI, not a half table). */
    jpegc_source_end_stream(reader, !result->complete && result->scans_completed == cinfo->input_scan_number);
    jpeg_start_output(cinfo, cinfo->input_scan_number);
    read_rows(reader, params);
    jpegc_reader_destroy(reader);
    return IP_STATUS_OK;
}
