/* QOI ("Quite OK Image") — the format itself, written from the specification at https://qoiformat.org.
 *
 * This file knows nothing about imagepipe: it reads and writes QOI bytes, nothing else. The plugin glue in
 * template_coder.c turns these functions into the imagepipe ABI. Keeping the two apart is the pattern to copy
 * when you wrap your own format: the codec stays testable on its own, and the glue stays short enough to read.
 *
 * A QOI file is
 *   a 14-byte header:  "qoif", width (u32 big-endian), height (u32 big-endian), channels (3 = RGB, 4 = RGBA),
 *                      colorspace (0 = sRGB with linear alpha, 1 = all channels linear)
 *   a stream of ops that each produce one or more RGBA pixels, left to right, top to bottom
 *   an 8-byte end marker: 0,0,0,0,0,0,0,1
 */
#ifndef TEMPLATE_QOI_CODEC_H
#define TEMPLATE_QOI_CODEC_H

#include <stddef.h>
#include <stdint.h>

#define QOI_HEADER_SIZE 14
#define QOI_END_MARKER_SIZE 8
/* The specification suggests refusing larger images: 400 million pixels is already 1.6 GB of RGBA. */
#define QOI_PIXELS_MAX 400000000u

typedef struct qoi_header {
    uint32_t width;
    uint32_t height;
    uint8_t channels;   /* 3 or 4; says whether the alpha channel means anything. */
    uint8_t colorspace; /* 0 or 1; informative only, the pixel values are not converted. */
} qoi_header;

typedef enum qoi_result {
    QOI_OK = 0,
    QOI_TRUNCATED,    /* the bytes end before the format says they should */
    QOI_INVALID,      /* not QOI, or a malformed header or stream */
    QOI_TOO_LARGE,    /* more than QOI_PIXELS_MAX pixels */
    QOI_STOPPED,      /* a callback asked to stop (cancellation, a failed write) */
} qoi_result;

/* Called after each finished row while decoding, or before each row while encoding; y is that row.
 * Return non-zero to stop: the codec then returns QOI_STOPPED at once. */
typedef int (*qoi_row_callback)(void *context, uint32_t y);

/* Encoding reads its input through this: return a pointer to row y as straight (not premultiplied) RGBA8,
 * valid until the next call, or NULL to stop (the encoder then returns QOI_STOPPED). */
typedef const uint8_t *(*qoi_row_source)(void *context, uint32_t y);

/* Appends bytes to the output; returns non-zero when the write failed (the encoder returns QOI_STOPPED). */
typedef int (*qoi_write_function)(void *context, const uint8_t *bytes, size_t size);

/* Non-zero when data starts with the "qoif" magic (size may be smaller than 4: then 0). */
int qoi_has_magic(const uint8_t *data, size_t size);

/* Reads and validates the header. On failure writes a one-line reason into why (why_size bytes with the NUL;
 * why may be NULL). Every later function expects a header that this one accepted. */
qoi_result qoi_read_header(const uint8_t *data, size_t size, qoi_header *header, char *why, size_t why_size);

/* Decodes every pixel into `pixels` as RGBA8 rows `stride` bytes apart. For 3-channel files alpha is written
 * as 255, whatever the stream says, because such a file declares that it has no alpha. `row_done` (may be
 * NULL) is called after each row. Checks every read against size: a short stream gives QOI_TRUNCATED. */
qoi_result qoi_decode(const uint8_t *data, size_t size, const qoi_header *header, uint8_t *pixels, size_t stride,
                      qoi_row_callback row_done, void *context, char *why, size_t why_size);

/* Encodes width x height pixels read row by row from `rows` and writes header, stream and end marker through
 * `write`. With 3 channels the input alpha is ignored (taken as 255). */
qoi_result qoi_encode(const qoi_header *header, qoi_row_source rows, void *rows_context, qoi_write_function write,
                      void *write_context, char *why, size_t why_size);

#endif
