/* Shared by the parts of JPEGCodec: the libjpeg error manager, the memory source, the marker walk and the
 * pixel placement. Not seen by Swift. */
#ifndef JPEG_CODEC_INTERNAL_H
#define JPEG_CODEC_INTERNAL_H

#include <setjmp.h>
#include <stdio.h> /* jpeglib.h needs FILE */
#include <jpeglib.h>
#include <jerror.h>
#include "jpeg_codec.h"

/* Where libjpeg's error and warning callbacks leave what happened. error_exit longjmps to `jump`. */
typedef struct jpegc_errors {
    struct jpeg_error_mgr pub; /* first: libjpeg's cinfo->err points here */
    jmp_buf jump;
    /* Non-zero when this code raised the error itself (a limit, cancellation): the status to return. */
    ip_status raised;
    /* The message of the error that ended the session. */
    char text[JMSG_LENGTH_MAX + 128];
    /* libjpeg ran out of input ("Premature end of JPEG file"); the session ended there. */
    int saw_eof;
    /* A "Corrupt JPEG data" warning ended the session; its text. */
    int corrupt;
    char corrupt_text[JMSG_LENGTH_MAX];
    /* Set while a preview reads past the bytes received: the warnings that causes are expected and ignored. */
    int ignore_corruption;
} jpegc_errors;

/* A source over a borrowed buffer. Non-suspending (the default) it answers the end of the data with a fake EOI
 * marker and a JWRN_JPEG_EOF warning, as libjpeg's own memory source does; suspending, it makes libjpeg suspend. */
typedef struct jpegc_source {
    struct jpeg_source_mgr pub; /* first: cinfo->src points here */
    int suspending;
} jpegc_source;

/* The progress monitor: polls cancellation and caps the number of scans. */
typedef struct jpegc_progress {
    struct jpeg_progress_mgr pub; /* first: cinfo->progress points here */
    uint32_t max_scans;
    jpegc_cancel_fn cancelled;
    void *cancel_context;
    unsigned calls;
} jpegc_progress;

/* What the bounded marker walk found before the first scan (no libjpeg involved). */
typedef struct jpegc_markers {
    int found_sof;
    int sof_marker;
    int precision;
    uint32_t width;
    uint32_t height;
    int components;
    int orientation;
    int has_exif;
    uint32_t icc_size;
    int adobe;
    int jfif;
    /* The first Exif block (after "Exif\0\0") and XMP packet (after its namespace): offsets into the data, sizes
     * 0 when absent; a segment cut short by the data's end gives what is there. */
    size_t exif_offset;
    size_t exif_size;
    size_t xmp_offset;
    size_t xmp_size;
} jpegc_markers;

/* One decompression session, heap-allocated so that every field keeps its value across a longjmp (locals changed
 * after setjmp are indeterminate afterwards; memory reached through a pointer is not). */
typedef struct jpegc_reader {
    struct jpeg_decompress_struct cinfo;
    jpegc_errors errors;
    jpegc_source source;
    jpegc_progress progress;
    jpegc_markers markers;
    size_t size;
} jpegc_reader;

/* Creates a reader over data[0..size) with the error manager, the source and the progress monitor installed.
 * Returns NULL when out of memory. Never longjmps (jpeg_create_decompress runs under the reader's own setjmp). */
jpegc_reader *jpegc_reader_create(const uint8_t *data, size_t size, uint64_t max_memory, uint32_t max_scans,
                                  jpegc_cancel_fn cancelled, void *cancel_context);
void jpegc_reader_destroy(jpegc_reader *reader);

/* Ends a suspended preview's input where it stopped: from now on the end of the data reads as an EOI marker and the
 * warnings that causes are ignored. With discard_rest (the data stopped between two scans, inside a marker segment
 * that libjpeg would otherwise re-read with EOI bytes as its content) the partial segment is dropped and the very
 * next marker is EOI. */
void jpegc_source_end_stream(jpegc_reader *reader, int discard_rest);

/* The status and message for the error that ended a session (called after the longjmp). */
ip_status jpegc_reader_failure(const jpegc_reader *reader, ip_message message);

/* Raises an error of this code's own from inside a session: records status and text, then longjmps. */
void jpegc_raise(jpegc_errors *errors, ip_status status, const char *format, ...)
    __attribute__((format(printf, 3, 4), noreturn));

/* libjpeg error manager callbacks: error_exit longjmps; emit_message never prints, and longjmps on the end of the
 * data and on corrupt-data warnings (unless ignore_corruption). */
void jpegc_install_error_manager(jpegc_errors *errors);

/* Walks the markers from SOI to the first SOS (or the end of the data) without allocating. */
void jpegc_walk_markers(const uint8_t *data, size_t size, jpegc_markers *markers);

/* printf into an ip_message, truncated to its capacity; a NULL buffer or zero capacity is ignored. */
void jpegc_message(ip_message message, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Where the decoded pixel (0, y) of stored row y goes in the oriented output, and the byte step to pixel (1, y). */
typedef struct jpegc_row_target {
    uint8_t *start;
    ptrdiff_t step;
} jpegc_row_target;

jpegc_row_target jpegc_row_target_for(uint8_t *pixels, size_t stride, uint32_t out_width, uint32_t out_height,
                                      int32_t orientation, uint32_t y);

/* Writes one decoded row (RGBA, or CMYK converted to RGBA; inverted when Adobe stored it so) to its target. */
void jpegc_place_rgba_row(const uint8_t *row, uint32_t width, jpegc_row_target target);
void jpegc_place_cmyk_row(const uint8_t *row, uint32_t width, int inverted, jpegc_row_target target);

#endif
