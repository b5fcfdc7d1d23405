/* PNGCodec: the parts shared by reading and writing (error callbacks, messages, status mapping). */
#include "png_codec_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void pngc_on_error(png_structp png, png_const_charp text) {
    pngc_errors *errors = (pngc_errors *)png_get_error_ptr(png);
    if (errors != NULL) {
        snprintf(errors->text, sizeof errors->text, "%s", text != NULL ? text : "unknown libpng error");
    }
    png_longjmp(png, 1);
}

void pngc_on_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

void pngc_message(ip_message message, const char *format, ...) {
    if (message.buffer == NULL || message.capacity == 0) return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(message.buffer, message.capacity, format, arguments);
    va_end(arguments);
}

ip_status pngc_status_for_libpng_error(const char *text) {
    /* The IDAT chunks end (a later chunk follows) before every row was read: the image data is cut short. */
    if (strstr(text, "Not enough image data") != NULL) return IP_STATUS_TRUNCATED;
    if (strstr(text, "Out of memory") != NULL || strstr(text, "Insufficient memory") != NULL) return IP_STATUS_NO_MEMORY;
    if (strstr(text, "exceeds user limit") != NULL || strstr(text, "chunk data is too large") != NULL) {
        return IP_STATUS_LIMIT_EXCEEDED;
    }
    return IP_STATUS_INVALID_DATA;
}
