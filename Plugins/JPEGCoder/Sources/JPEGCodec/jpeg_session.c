/* JPEGCodec: one decompression session — libjpeg's error manager, the memory source, the progress monitor, and the
 * mapping from libjpeg's errors and warnings to ip_status. */
#include "jpeg_codec_internal.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Calls of the progress monitor between two cancellation checks (it runs once per row or iMCU row). */
#define JPEGC_CANCEL_INTERVAL 8u

void jpegc_message(ip_message message, const char *format, ...) {
    if (message.buffer == NULL || message.capacity == 0) return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(message.buffer, message.capacity, format, arguments);
    va_end(arguments);
}

void jpegc_raise(jpegc_errors *errors, ip_status status, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(errors->text, sizeof errors->text, format, arguments);
    va_end(arguments);
    errors->raised = status;
    longjmp(errors->jump, 1);
}

/* ---- error manager ---- */

static void on_error_exit(j_common_ptr cinfo) {
    jpegc_errors *errors = (jpegc_errors *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, errors->text);
    longjmp(errors->jump, 1);
}

/* Warnings that mean the entropy-coded data is damaged. Padding before a marker (JWRN_EXTRANEOUS_DATA) is left out
 * on purpose: real cameras write it and every decoder ignores it. */
static int is_corruption(int code) {
    switch (code) {
    case JWRN_ARITH_BAD_CODE:
    case JWRN_HIT_MARKER:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_MUST_RESYNC:
    case JWRN_NOT_SEQUENTIAL:
        return 1;
    default:
        return 0;
    }
}

/* Replaces libjpeg's emit_message, which prints warnings to stderr. Trace messages (level >= 0) are dropped and
 * nothing is ever printed. The end of the data and corrupt data end the session at once (longjmp, like an error):
 * the result would be TRUNCATED or INVALID_DATA anyway, and decoding on would only fill the rest of a possibly huge
 * image with gray. Except while a preview reads past the bytes received (ignore_corruption), where both are
 * expected. */
static void on_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    jpegc_errors *errors = (jpegc_errors *)cinfo->err;
    int code = cinfo->err->msg_code;
    cinfo->err->num_warnings++;
    if (errors->ignore_corruption) return;
    if (code == JWRN_JPEG_EOF) {
        errors->saw_eof = 1;
        longjmp(errors->jump, 1);
    }
    if (is_corruption(code)) {
        errors->corrupt = 1;
        (*cinfo->err->format_message)(cinfo, errors->corrupt_text);
        longjmp(errors->jump, 1);
    }
}

/* Never called by libjpeg when emit_message is replaced, but keep it silent anyway. */
static void on_output_message(j_common_ptr cinfo) { (void)cinfo; }

void jpegc_install_error_manager(jpegc_errors *errors) {
    jpeg_std_error(&errors->pub);
    errors->pub.error_exit = on_error_exit;
    errors->pub.emit_message = on_emit_message;
    errors->pub.output_message = on_output_message;
}

/* ---- memory source ---- */

static const JOCTET fake_eoi[2] = {0xFF, JPEG_EOI};

static void source_init(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean source_fill(j_decompress_ptr cinfo) {
    jpegc_source *source = (jpegc_source *)cinfo->src;
    if (source->suspending) return FALSE;
    /* Out of data: tell libjpeg the image ends here, as jdatasrc.c does. */
    WARNMS(cinfo, JWRN_JPEG_EOF);
    source->pub.next_input_byte = fake_eoi;
    source->pub.bytes_in_buffer = 2;
    return TRUE;
}

static void source_skip(j_decompress_ptr cinfo, long count) {
    jpegc_source *source = (jpegc_source *)cinfo->src;
    if (count <= 0) return;
    if ((size_t)count > source->pub.bytes_in_buffer) {
        /* Skipping past the end: drain what is there; the next read suspends or meets the fake EOI. */
        source->pub.next_input_byte += source->pub.bytes_in_buffer;
        source->pub.bytes_in_buffer = 0;
        return;
    }
    source->pub.next_input_byte += count;
    source->pub.bytes_in_buffer -= (size_t)count;
}

static void source_term(j_decompress_ptr cinfo) { (void)cinfo; }

void jpegc_source_end_stream(jpegc_reader *reader, int discard_rest) {
    reader->source.suspending = 0;
    reader->errors.ignore_corruption = 1;
    if (discard_rest) {
        /* Forget the marker libjpeg was in the middle of; its next read finds EOI. */
        reader->cinfo.unread_marker = 0;
        reader->source.pub.next_input_byte = fake_eoi;
        reader->source.pub.bytes_in_buffer = 2;
    }
}

/* ---- progress monitor ---- */

static void on_progress(j_common_ptr cinfo) {
    jpegc_progress *progress = (jpegc_progress *)cinfo->progress;
    jpegc_errors *errors = (jpegc_errors *)cinfo->err;
    if (cinfo->is_decompressor) {
        j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;
        if ((uint32_t)dinfo->input_scan_number > progress->max_scans) {
            jpegc_raise(errors, IP_STATUS_LIMIT_EXCEEDED, "JPEG has more than %u scans (a known denial-of-service pattern)",
                        progress->max_scans);
        }
    }
    if (progress->cancelled != NULL && progress->calls++ % JPEGC_CANCEL_INTERVAL == 0 &&
        progress->cancelled(progress->cancel_context)) {
        jpegc_raise(errors, IP_STATUS_CANCELLED, "cancelled");
    }
}

/* ---- session ---- */

jpegc_reader *jpegc_reader_create(const uint8_t *data, size_t size, uint64_t max_memory, uint32_t max_scans,
                                  jpegc_cancel_fn cancelled, void *cancel_context) {
    jpegc_reader *reader = calloc(1, sizeof *reader);
    if (reader == NULL) return NULL;
    reader->size = size;
    jpegc_install_error_manager(&reader->errors);
    reader->cinfo.err = &reader->errors.pub;
    if (setjmp(reader->errors.jump)) {
        /* jpeg_create_decompress fails only when its first allocation does. */
        free(reader);
        return NULL;
    }
    jpeg_create_decompress(&reader->cinfo);
    /* Caps the coefficient buffers of progressive and buffered-image decoding: past it libjpeg would need a backing
     * store, which this build lacks, so it fails with JERR_NO_BACKING_STORE instead of allocating. */
    if (max_memory > 0) reader->cinfo.mem->max_memory_to_use = (long)(max_memory > (uint64_t)LONG_MAX ? LONG_MAX : max_memory);
    reader->source.pub.init_source = source_init;
    reader->source.pub.fill_input_buffer = source_fill;
    reader->source.pub.skip_input_data = source_skip;
    reader->source.pub.resync_to_restart = jpeg_resync_to_restart;
    reader->source.pub.term_source = source_term;
    reader->source.pub.next_input_byte = data;
    reader->source.pub.bytes_in_buffer = data != NULL ? size : 0;
    reader->cinfo.src = &reader->source.pub;
    reader->progress.pub.progress_monitor = on_progress;
    reader->progress.max_scans = max_scans > 0 ? max_scans : JPEGC_DEFAULT_MAX_SCANS;
    reader->progress.cancelled = cancelled;
    reader->progress.cancel_context = cancel_context;
    reader->cinfo.progress = &reader->progress.pub;
    jpegc_walk_markers(data, data != NULL ? size : 0, &reader->markers);
    return reader;
}

void jpegc_reader_destroy(jpegc_reader *reader) {
    if (reader == NULL) return;
    jpeg_destroy_decompress(&reader->cinfo);
    free(reader);
}

ip_status jpegc_reader_failure(const jpegc_reader *reader, ip_message message) {
    const jpegc_errors *errors = &reader->errors;
    if (errors->raised != 0) {
        jpegc_message(message, "%s", errors->text);
        return errors->raised;
    }
    int code = errors->pub.msg_code;
    if (code == JERR_BAD_PRECISION && reader->markers.precision == 12) {
        jpegc_message(message, "12-bit JPEG is not supported: this libjpeg-turbo build decodes 8-bit samples only");
        return IP_STATUS_UNSUPPORTED;
    }
    if (errors->saw_eof) {
        jpegc_message(message, "JPEG data ends after %zu bytes, before the image is complete", reader->size);
        return IP_STATUS_TRUNCATED;
    }
    if (errors->corrupt) {
        jpegc_message(message, "invalid JPEG: %s", errors->corrupt_text);
        return IP_STATUS_INVALID_DATA;
    }
    switch (code) {
    case JERR_OUT_OF_MEMORY:
        jpegc_message(message, "libjpeg ran out of memory: %s", errors->text);
        return IP_STATUS_NO_MEMORY;
    case JERR_NO_BACKING_STORE:
        jpegc_message(message, "decoding this JPEG needs more than the memory limit of %ld MiB",
                      reader->cinfo.mem != NULL ? reader->cinfo.mem->max_memory_to_use >> 20 : 0L);
        return IP_STATUS_LIMIT_EXCEEDED;
    case JERR_IMAGE_TOO_BIG:
    case JERR_WIDTH_OVERFLOW:
        jpegc_message(message, "JPEG too large: %s", errors->text);
        return IP_STATUS_LIMIT_EXCEEDED;
    case JERR_ARITH_NOTIMPL:
    case JERR_CONVERSION_NOTIMPL:
    case JERR_NOTIMPL:
    case JERR_NOT_COMPILED:
    case JERR_EMPTY_IMAGE:
    case JERR_SOF_UNSUPPORTED:
    case JERR_CCIR601_NOTIMPL:
        jpegc_message(message, "unsupported JPEG: %s", errors->text);
        return IP_STATUS_UNSUPPORTED;
    default:
        jpegc_message(message, "invalid JPEG: %s", errors->text);
        return IP_STATUS_INVALID_DATA;
    }
}
