/* libFuzzer target: the PNG coder's C layer over libpng and libdeflate (Plugins/PNGCoder/Sources/PNGCodec).
 *
 * 1. Reading: probe, then decode into a buffer sized from the probe, as the plugin does. Any input must give a
 *    status without out-of-bounds access (ASan) or undefined behaviour (UBSan), and no longjmp mishap.
 *    The same bytes read by ranges (pngc_ranged, as the host's source extension gives a large file) must give the
 *    same status and the same pixels.
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

/* pread over the fuzz input, handing out at most 7 bytes at a time so that libpng's reads are split. */
typedef struct memory_range {
    const uint8_t *data;
    size_t size;
} memory_range;

static int64_t read_at_memory(void *context, uint64_t offset, void *buffer, size_t length) {
    const memory_range *range = context;
    if (offset >= range->size) return 0;
    size_t count = range->size - (size_t)offset;
    if (count > length) count = length;
    if (count > 7) count = 7;
    memcpy(buffer, range->data + offset, count);
    return (int64_t)count;
}

static void read_png(const uint8_t *data, size_t size) {
    char text[256];
    ip_message message = {text, sizeof text};
    pngc_info info;
    if (pngc_probe(data, size, NULL, &info, message) != IP_STATUS_OK) return;
    /* The colour chunks were parsed (and an iCCP inflated and copied): exercise the copy, then free it. */
    if (info.icc_profile != NULL && info.icc_size > 0 && info.icc_profile[info.icc_size - 1] == 0xA5) info.gamma ^= 1;
    pngc_info_release(&info);
    if ((uint64_t)info.width * info.height > MAX_PIXELS || info.width == 0 || info.height == 0) return;
    if (pngc_minimum_file_size(&info) > size) return;
    int output16 = info.bit_depth == 16;
    size_t stride = (size_t)info.width * (output16 ? 8 : 4);
    uint8_t *pixels = malloc(stride * info.height);
    if (!pixels) return;
    ip_status whole = pngc_decode(data, size, NULL, &info, output16, pixels, stride, NULL, NULL, message);
    memory_range range = {data, size};
    pngc_ranged ranged = {size, read_at_memory, &range};
    size_t prefix = size < 64 ? size : 64;
    uint8_t *again = malloc(stride * info.height);
    if (again) {
        ip_status ranged_status = pngc_decode(data, prefix, &ranged, &info, output16, again, stride, NULL, NULL, message);
        /* The in-memory path may inflate every row at once with libdeflate, which checks what libpng would not;
         * where both succeed, the pixels are the same. */
        if (whole == IP_STATUS_OK && ranged_status == IP_STATUS_OK && memcmp(pixels, again, stride * info.height) != 0) abort();
        free(again);
    }
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
    if (pngc_probe(encoded.bytes, encoded.size, NULL, &info, message) != IP_STATUS_OK) abort();
    if (info.width != width || info.height != height || info.icc_size != 0) abort();
    pngc_info_release(&info);
    uint8_t *decoded = malloc(stride * height);
    if (!decoded) abort();
    if (pngc_decode(encoded.bytes, encoded.size, NULL, &info, input16, decoded, stride, NULL, NULL, message) != IP_STATUS_OK) abort();
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
