/* Shared by the two PNG writers (libpng for interlaced output, png_write_fast.c for the rest): the row
 * conversion both feed from, the row filter, and the entry point of each. */
#ifndef PNG_ENCODE_INTERNAL_H
#define PNG_ENCODE_INTERNAL_H

#include "png_codec.h"

/* Bytes per output pixel: 3 or 4 channels of 1 or 2 bytes. */
static inline size_t pngc_output_pixel_size(const pngc_encode_params *p) {
    return (p->write_alpha ? 4u : 3u) * (p->output16 ? 2u : 1u);
}

/* Converts source row y of p->pixels into out (pngc_output_pixel_size * width bytes) in PNG's sample layout:
 * RGB or RGBA, 8 bits or big-endian 16 bits, premultiplied colours divided back by alpha. [thread-safe] */
void pngc_convert_row(const pngc_encode_params *p, uint32_t y, uint8_t *out);

/* Row y in PNG's sample layout: the source row itself when it already is (8-bit straight RGBA), else scratch
 * after pngc_convert_row. The result is valid until scratch is reused. [thread-safe] */
const uint8_t *pngc_output_row(const pngc_encode_params *p, uint32_t y, uint8_t *scratch);

/* Writes params (already checked by pngc_encode) as a PNG through libpng, zlib at params->compression_level:
 * the writer for Adam7 interlacing. */
ip_status pngc_encode_libpng(const pngc_encode_params *params, ip_message message);

/* Writes params (already checked by pngc_encode) as a non-interlaced PNG: adaptive filters, one libdeflate call,
 * nothing sent to the sink before the data is compressed. Returns what pngc_encode documents. */
ip_status pngc_encode_fast(const pngc_encode_params *params, ip_message message);

/* The libdeflate level (1..12) for a pngc_encode_params speed (0..10); for speed 0 the writer asks
 * pngc_default_deflate_level instead (this table's 7 is what that gives drawings). */
int pngc_deflate_level(int32_t speed);

/* The level for speed 0: 7, or 5 when a level-1 sample of the filtered rows `data` keeps over a quarter of its size
 * (photographic rows, where level 7's search buys under 2 % at up to three times the time). */
int pngc_default_deflate_level(const uint8_t *data, size_t size);

/* The five PNG filter types (PNG specification, section 9.2). */
enum { PNGC_FILTER_NONE = 0, PNGC_FILTER_SUB = 1, PNGC_FILTER_UP = 2, PNGC_FILTER_AVERAGE = 3, PNGC_FILTER_PAETH = 4 };

/* Filters one row for PNG: out[0] receives the filter type, out[1...row_size] the filtered bytes. `previous` is the
 * unfiltered row above (all zeros for the first row), `pixel_size` the bytes per pixel (the filters' "bpp").
 * With sub_only, always uses Sub; else picks the type whose output has the smallest sum of absolute values taken
 * as signed bytes (the heuristic the PNG specification recommends, and libpng's). Returns the type. [thread-safe] */
int pngc_filter_row(const uint8_t *row, const uint8_t *previous, size_t row_size, size_t pixel_size, int sub_only,
                    uint8_t *out);

#endif
