/* libFuzzer target: the PNG coder's C layer over libpng and libdeflate (Plugins/PNGCoder/Sources/PNGCodec).
 *
 * 1. Reading: probe, then decode into a buffer sized from the probe, as the plugin does. Any input must give a
 *    status without out-of-bounds access (ASan) or undefined behaviour (UBSan), and no longjmp mishap.
 * 2. Writing: the first bytes choose a small image's size and the writer's options, the rest are its pixels; the
 *    written PNG must decode to exactly those pixels (straight, non-premultiplied input, so lossless). */
#include <stdlib.h>
#include <string.h>
#include "fuzz_buffer.h"
#include "png_codec.h"

#define MAX_PIXELS (1u << 20)

static ip_status append(void *context, const uint8_t *data, size_t size) {
    return buffer_append(context, data, size) ? IP_STATUS_NO_MEMORY : IP_STATUS_OK;
}

static void read_png(const uint8_t *data, size_t size) {
    char text[256];
    ip_message message = {text, sizeof text};
    pngc_info info;
    if (pngc_probe(data, size, &info, message) != IP_STATUS_OK) return;
    /* The colour chunks were parsed (and an iCCP inflated and copied): exercise the copy, then free it. */
    if (info.icc_profile != NULL && info.icc_size > 0 && info.icc_profile[info.icc_size - 1] == 0xA5) info.gamma ^= 1;
    pngc_info_release(&info);
    if ((uint64_t)info.width * info.height > MAX_PIXELS || info.width == 0 || info.height == 0) return;
    if (pngc_minimum_file_size(&info) > size) return;
    int output16 = info.bit_depth == 16;
    size_t stride = (size_t)info.width * (output16 ? 8 : 4);
    uint8_t *pixels = malloc(stride * info.height);
    if (!pixels) return;
    (void)pngc_decode(data, size, &info, output16, pixels, stride, NULL, NULL, message);
    free(pixels);
}

static void write_png(const uint8_t *data, size_t size) {
    if (size < 4) return;
    uint32_t width = 1 + data[0] % 64, height = 1 + data[1] % 64;
    uint8_t options = data[2];
    int input16 = options & 1;
    size_t stride = (size_t)width * (input16 ? 8 : 4);
    uint8_t *pixels = calloc(stride * height, 1);
    if (!pixels) return;
    size_t available = size - 3;
    memcpy(pixels, data + 3, available < stride * height ? available : stride * height);
    char text[256];
    ip_message message = {text, sizeof text};
    buffer encoded = {0};
    ip_byte_sink sink = {sizeof sink, &encoded, append};
    pngc_encode_params params = {
        .pixels = pixels, .width = width, .height = height, .stride = stride, .input16 = input16,
        .premultiplied = 0, .write_alpha = 1, .output16 = input16, .compression_level = (options >> 1) % 10,
        .fast_filters = (options >> 5) & 1, .interlace = (options >> 6) & 1, .speed = options % 11,
        .sink = &sink, .cancelled = NULL, .cancel_context = NULL,
    };
    if (pngc_encode(&params, message) != IP_STATUS_OK) abort();
    pngc_info info;
    if (pngc_probe(encoded.bytes, encoded.size, &info, message) != IP_STATUS_OK) abort();
    if (info.width != width || info.height != height || info.icc_size != 0) abort();
    pngc_info_release(&info);
    uint8_t *decoded = malloc(stride * height);
    if (!decoded) abort();
    if (pngc_decode(encoded.bytes, encoded.size, &info, input16, decoded, stride, NULL, NULL, message) != IP_STATUS_OK) abort();
    if (memcmp(decoded, pixels, stride * height) != 0) abort();  /* straight RGBA at the same depth: lossless */
    free(decoded);
    free(encoded.bytes);
    free(pixels);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    read_png(data, size);
    write_png(data, size);
    return 0;
}
