/* Shared by the reading and writing halves of PNGCodec: libpng error handling and message formatting. */
#ifndef PNG_CODEC_INTERNAL_H
#define PNG_CODEC_INTERNAL_H

#include <png.h>
#include "png_codec.h"

/* Where libpng's error and warning callbacks leave their message (the png_struct's error pointer). */
typedef struct pngc_errors {
    char text[256];
} pngc_errors;

/* libpng error callback: keeps the message and longjmps back to the setjmp of the calling pngc_* function.
 * It never prints: a plugin must not write to the host's stderr. */
void pngc_on_error(png_structp png, png_const_charp text);

/* libpng warning callback: ignored (libpng warns about harmless things such as unknown sRGB profiles). */
void pngc_on_warning(png_structp png, png_const_charp text);

/* printf into an ip_message, truncated to its capacity; a NULL buffer or zero capacity is ignored. */
void pngc_message(ip_message message, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* The status that best describes a libpng error text that did not come from running out of input. */
ip_status pngc_status_for_libpng_error(const char *text);

/* A PNG's filtered rows inflated beforehand (png_inflate.c), and the stored-block stream libpng reads of them:
 * the file's bytes before its first IDAT chunk, then IDAT chunks of stored deflate blocks. */
typedef struct pngc_inflated {
    const uint8_t *data;
    size_t prefix;
    uint8_t *raw;
    size_t raw_size;
    uint32_t adler;
    /* Where libpng is in the stream. */
    size_t position;
    uint8_t piece[16];
    size_t piece_length, piece_position;
    const uint8_t *body;
    size_t body_left, raw_next;
    int in_tail, finished;
} pngc_inflated;

/* 1 with `inflated` filled when the file's rows (non-interlaced, at most `max_raw` bytes) inflate exactly and
 * every chunk up to them has a good CRC; 0 when libpng is to read the file itself. */
int pngc_inflate_whole(const uint8_t *data, size_t size, size_t max_raw, pngc_inflated *inflated);

/* The next `length` bytes of the stream libpng reads; 0 when it ends first. */
int pngc_inflated_read(pngc_inflated *inflated, uint8_t *out, size_t length);

void pngc_inflated_release(pngc_inflated *inflated);

/* Undoes the filters of inflated rows of `bpp`-byte pixels (3, 4, 6 or 8) in place and marks each row filter type
 * 0; `raw` and `zero_row` (row_bytes zeros) are readable 8 bytes past their end. 0, with the rows untouched, for
 * another pixel size, a row with an unknown filter type, or a machine without SSE2. */
int pngc_unfilter_rows(uint8_t *raw, size_t raw_size, size_t row_bytes, size_t bpp, const uint8_t *zero_row);

/* Rows between two cancellation checks: the decoder's row loops and both writers. */
#define PNGC_CANCEL_INTERVAL 16u

/* How a PNG stores its rows, as its header says (before libpng's transforms change what libpng reports). */
typedef struct pngc_stored_layout {
    int color_type, bit_depth, has_trns;
    size_t row_stride; /* the filter-type byte and the row's samples */
} pngc_stored_layout;

/* Whether inflated rows (`raw`, `height` rows of layout->row_stride bytes) reach RGBA without libpng (png_rows.c):
 * gray, gray with alpha, RGB or RGBA at 8 or 16 bits, no tRNS colour key, not interlaced, and every row of filter
 * type None, which pngc_unfilter_rows leaves behind (rows of 1- and 2-byte pixels keep their filters). */
int pngc_rows_are_direct(const pngc_stored_layout *layout, const uint8_t *raw, size_t raw_size, uint32_t height, int interlaced);

/* Converts such rows to RGBA8, or native-endian RGBA16 with `output16`, exactly as libpng's expand, scale_16,
 * expand_16, gray_to_rgb, filler and swap make them: into `pixels` (`stride` apart) or, with `reduce`, each into
 * `scratch` and then the shrinker. CANCELLED when `cancelled` says so between rows. */
ip_status pngc_convert_rows(const pngc_stored_layout *layout, const uint8_t *raw, const pngc_info *expected, int32_t output16,
                            uint8_t *pixels, size_t stride, struct bxs_shrinker *reduce, uint8_t *scratch,
                            pngc_cancel_fn cancelled, void *cancel_context, ip_message message);

#endif
