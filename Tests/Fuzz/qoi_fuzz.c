/* libFuzzer target: the QOI template's codec (Plugins/TemplateCoder/qoi_codec.c).
 *
 * Any input: the header check and the decoder must return a status, never read or write out of bounds (ASan) or
 * hit undefined behaviour (UBSan). A decoded image must survive an encode/decode round trip unchanged: that
 * also fuzzes the encoder, with whatever pixels the decoder made of the input. */
#include <stdlib.h>
#include <string.h>
#include "fuzz_buffer.h"
#include "qoi_codec.h"

/* Bounded so that a header claiming gigapixels cannot make the fuzzer itself run out of memory. */
#define MAX_PIXELS (1u << 20)

static int append(void *context, const uint8_t *bytes, size_t size) {
    return buffer_append(context, bytes, size);
}

typedef struct { const uint8_t *pixels; size_t stride; } rows;

static const uint8_t *row(void *context, uint32_t y) {
    const rows *source = context;
    return source->pixels + (size_t)y * source->stride;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char why[128];
    qoi_header header;
    (void)qoi_has_magic(data, size);
    if (qoi_read_header(data, size, &header, why, sizeof why) != QOI_OK) return 0;
    if ((uint64_t)header.width * header.height > MAX_PIXELS) return 0;
    size_t stride = (size_t)header.width * 4;
    uint8_t *pixels = malloc(stride * header.height);
    if (!pixels) return 0;
    if (qoi_decode(data, size, &header, pixels, stride, NULL, NULL, why, sizeof why) == QOI_OK) {
        rows source = {pixels, stride};
        buffer encoded = {0};
        if (qoi_encode(&header, row, &source, append, &encoded, why, sizeof why) != QOI_OK) abort();
        qoi_header again;
        if (qoi_read_header(encoded.bytes, encoded.size, &again, why, sizeof why) != QOI_OK) abort();
        uint8_t *decoded = malloc(stride * header.height);
        if (!decoded) abort();
        if (qoi_decode(encoded.bytes, encoded.size, &again, decoded, stride, NULL, NULL, why, sizeof why) != QOI_OK) abort();
        if (memcmp(decoded, pixels, stride * header.height) != 0) abort();  /* QOI is lossless */
        free(decoded);
        free(encoded.bytes);
    }
    free(pixels);
    return 0;
}
