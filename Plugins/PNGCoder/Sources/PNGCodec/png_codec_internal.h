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

#endif
