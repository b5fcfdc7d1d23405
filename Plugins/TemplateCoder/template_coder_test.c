/* A tiny C test host for TemplateCoder: how to test a plugin without the Swift host.
 *
 *   template_coder_test path/to/libTemplateCoder.so
 *
 * It does what imagepipe's host does — dlopen with RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE, look up the one entry
 * symbol, call init with a service table, fetch the coder factory — and then checks the coder against the ABI:
 * hand-made streams for each QOI op, round trips, every truncation, random corruption, limits (nothing may be
 * allocated when a limit refuses), cancellation, a refusing sink, old struct sizes and concurrent use.
 * It prints one line per failed check and ends with "N passed, N failed".
 */
#include <imagepipe/imagepipe.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the fake host ---------------------------------------------------------------------------------- */

/* The host defines ip_call; plugins only pass it back. Ours counts allocations and cancellation polls. */
struct ip_call {
    int cancel_at_poll; /* 0 = never cancel; N = report cancelled from the Nth poll on */
    int polls;
    int allocations;
    void *buffers[8];
};

static ip_status fake_alloc(const ip_host *host, const ip_call *constant_call, uint32_t width, uint32_t height,
                            ip_pixel_format format, ip_image *image) {
    ip_call *call = (ip_call *)constant_call;
    (void)host;
    size_t bpp = format == IP_PIXEL_RGBA16 ? 8 : 4;
    void *pixels;
    if (call == NULL || call->allocations >= 8) return IP_STATUS_NO_MEMORY;
    pixels = calloc((size_t)width * height, bpp);
    if (pixels == NULL) return IP_STATUS_NO_MEMORY;
    call->buffers[call->allocations++] = pixels;
    image->width = width;
    image->height = height;
    image->stride = (uint32_t)(width * bpp);
    image->format = format;
    image->pixels = pixels;
    return IP_STATUS_OK;
}

static void fake_free(const ip_host *host, const ip_call *call, uint8_t *pixels) {
    (void)host;
    (void)call;
    (void)pixels;
}

static int32_t fake_is_cancelled(const ip_host *host, const ip_call *constant_call) {
    ip_call *call = (ip_call *)constant_call;
    (void)host;
    if (call == NULL) return 0;
    call->polls++;
    return call->cancel_at_poll > 0 && call->polls >= call->cancel_at_poll;
}

static void fake_log(const ip_host *host, ip_log_level level, const char *message) {
    (void)host;
    fprintf(stderr, "log %d: %s\n", (int)level, message);
}

static const void *fake_get_extension(const ip_host *host, const char *id) {
    (void)host;
    (void)id;
    return NULL;
}

static const ip_host fake_host = {
    sizeof(ip_host), IP_ABI_MAJOR, IP_ABI_MINOR, "template-test", "0",
    NULL, /* host_data */
    fake_get_extension, fake_alloc, fake_free, fake_is_cancelled, fake_log,
    NULL, /* alloc_bytes: the template reports no colour facts, so it never asks */
    NULL, /* place: the template never renders at size */
};

static void call_end(ip_call *call) {
    int i;
    for (i = 0; i < call->allocations; i++) free(call->buffers[i]);
    memset(call, 0, sizeof *call);
}

/* A growable byte sink that can refuse past `limit` bytes. */
typedef struct sink_buffer {
    uint8_t *bytes;
    size_t size, capacity, limit;
} sink_buffer;

static ip_status sink_write(void *context, const uint8_t *data, size_t size) {
    sink_buffer *s = context;
    if (s->limit != 0 && s->size + size > s->limit) return IP_STATUS_LIMIT_EXCEEDED;
    if (s->size + size > s->capacity) {
        size_t capacity = (s->size + size) * 2;
        uint8_t *grown = realloc(s->bytes, capacity);
        if (grown == NULL) return IP_STATUS_NO_MEMORY;
        s->bytes = grown;
        s->capacity = capacity;
    }
    memcpy(s->bytes + s->size, data, size);
    s->size += size;
    return IP_STATUS_OK;
}

/* ---- the tiny test framework ---------------------------------------------------------------------- */

static int checks_failed;
static const ip_coder *coder;
static const ip_plugin_entry *entry;

#define CHECK(condition, ...)                                                                                  \
    do {                                                                                                       \
        if (!(condition)) {                                                                                    \
            checks_failed++;                                                                                   \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #condition);                       \
            fprintf(stderr, __VA_ARGS__);                                                                      \
            fputc('\n', stderr);                                                                               \
        }                                                                                                      \
    } while (0)

static uint32_t random_state = 12345;
static uint32_t next_random(void) {
    random_state = random_state * 1664525u + 1013904223u;
    return random_state >> 8;
}

/* ---- helpers around the coder ---------------------------------------------------------------------- */

/* Options without limits (the pointer is NULL: no limits from the host). */
static ip_decode_options default_options(void) {
    ip_decode_options options;
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    return options;
}

/* Limits that tests change field by field; options point to them. */
static ip_limits no_limits(void) {
    ip_limits limits;
    memset(&limits, 0, sizeof limits);
    limits.struct_size = sizeof limits;
    return limits;
}

/* Decodes with the given options; the result's pixels stay valid until call_end(call). */
static ip_status decode(const uint8_t *data, size_t size, const ip_decode_options *options, ip_call *call,
                        ip_image *image, char *message, size_t capacity) {
    ip_decode_request request;
    ip_message msg;
    request.struct_size = sizeof request;
    request.data = data;
    request.size = size;
    request.options = options;
    request.call = call;
    memset(image, 0, sizeof *image);
    image->struct_size = sizeof *image;
    msg.buffer = message;
    msg.capacity = capacity;
    if (capacity > 0) message[0] = 0;
    return coder->decode(&request, image, msg);
}

static ip_status encode(const ip_image *image, uint32_t frames, ip_call *call, sink_buffer *out, char *message) {
    ip_encode_options options;
    ip_byte_sink sink;
    ip_message msg;
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    sink.struct_size = sizeof sink;
    sink.context = out;
    sink.write = sink_write;
    msg.buffer = message;
    msg.capacity = 256;
    message[0] = 0;
    {
        /* The ABI takes an array of pointers (so that ip_image may grow); these tests encode one image. */
        const ip_image *images[1];
        images[0] = image;
        return coder->encode(images, frames, &options, call, &sink, msg);
    }
}

static void put_u32_be(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Writes a 14-byte QOI header and returns 14. */
static size_t put_header(uint8_t *p, uint32_t width, uint32_t height, uint8_t channels, uint8_t colorspace) {
    memcpy(p, "qoif", 4);
    put_u32_be(p + 4, width);
    put_u32_be(p + 8, height);
    p[12] = channels;
    p[13] = colorspace;
    return 14;
}

static size_t put_end(uint8_t *p) {
    static const uint8_t end[8] = {0, 0, 0, 0, 0, 0, 0, 1};
    memcpy(p, end, 8);
    return 8;
}

static int pixel_is(const ip_image *image, uint32_t x, uint32_t y, int r, int g, int b, int a) {
    const uint8_t *p = image->pixels + (size_t)y * image->stride + (size_t)x * 4;
    return p[0] == r && p[1] == g && p[2] == b && p[3] == a;
}

/* Test images: pattern 0 gradient, 1 noise, 2 solid, 3 few colours, 4 small steps, 5 varying alpha. */
static void fill_pattern(uint8_t *pixels, uint32_t width, uint32_t height, size_t stride, int pattern) {
    uint32_t x, y;
    static const uint8_t palette[5][4] = {{0, 0, 0, 255}, {255, 0, 0, 255}, {9, 200, 30, 255},
                                          {40, 40, 40, 0}, {255, 255, 255, 128}};
    uint8_t walk[4] = {100, 100, 100, 255};
    for (y = 0; y < height; y++)
        for (x = 0; x < width; x++) {
            uint8_t *p = pixels + (size_t)y * stride + (size_t)x * 4;
            uint32_t r = next_random();
            switch (pattern) {
            case 0: p[0] = (uint8_t)(x * 7); p[1] = (uint8_t)(y * 3); p[2] = (uint8_t)(x + y); p[3] = 255; break;
            case 1: p[0] = (uint8_t)r; p[1] = (uint8_t)(r >> 8); p[2] = (uint8_t)(r >> 16); p[3] = (uint8_t)(r >> 3); break;
            case 2: p[0] = 12; p[1] = 34; p[2] = 56; p[3] = 255; break;
            case 3: memcpy(p, palette[r % 5], 4); break;
            case 4:
                walk[0] = (uint8_t)(walk[0] + (int)(r % 5) - 2);
                walk[1] = (uint8_t)(walk[1] + (int)((r >> 4) % 41) - 20);
                walk[2] = (uint8_t)(walk[2] + (int)((r >> 10) % 17) - 8);
                memcpy(p, walk, 4);
                break;
            default: p[0] = (uint8_t)x; p[1] = (uint8_t)y; p[2] = 7; p[3] = (uint8_t)(x * y); break;
            }
        }
}

/* Encodes a w x h RGBA8 image of `pattern`; returns the encoded bytes (caller frees) or NULL. */
static uint8_t *encode_pattern(uint32_t width, uint32_t height, int pattern, ip_alpha_mode alpha, size_t *size) {
    ip_image image;
    sink_buffer out = {0};
    ip_call call = {0};
    char message[256];
    size_t stride = (size_t)width * 4;
    ip_status status;
    memset(&image, 0, sizeof image);
    image.struct_size = sizeof image;
    image.width = width;
    image.height = height;
    image.stride = (uint32_t)stride;
    image.format = IP_PIXEL_RGBA8;
    image.alpha_mode = alpha;
    image.pixels = malloc(stride * height);
    fill_pattern(image.pixels, width, height, stride, pattern);
    status = encode(&image, 1, &call, &out, message);
    free(image.pixels);
    CHECK(status == IP_STATUS_OK, "encode %ux%u pattern %d: %d %s", width, height, pattern, status, message);
    *size = out.size;
    return out.bytes;
}

/* ---- the tests ---------------------------------------------------------------------------------------- */

static void test_entry_and_descriptor(void) {
    const ip_coder_descriptor *d = coder->descriptor;
    CHECK(entry->struct_size == sizeof(ip_plugin_entry), "entry struct_size %u", entry->struct_size);
    CHECK(entry->abi_major == IP_ABI_MAJOR, "abi_major %u", entry->abi_major);
    CHECK(entry->get_factory("org.imagepipe.coders/2") == NULL, "unknown factory IDs give NULL");
    CHECK(entry->get_factory(IP_LOADER_FACTORY_ID) == NULL, "no loader factory");
    CHECK(strcmp(d->id, "org.imagepipe.coder.qoi/1") == 0, "id %s", d->id);
    CHECK(strcmp(d->format, "qoi") == 0, "format %s", d->format);
    CHECK(strcmp(d->mime_types[0], "image/qoi") == 0 && d->mime_types[1] == NULL, "mime types");
    CHECK(strcmp(d->extensions[0], "qoi") == 0 && d->extensions[1] == NULL, "extensions");
    CHECK(d->capabilities == (IP_CODER_CAN_DECODE | IP_CODER_CAN_ENCODE | IP_CODER_THREAD_SAFE), "capabilities");
    CHECK(d->pattern_count == 1 && d->patterns[0]->offset == 0 && d->patterns[0]->length == 4 &&
              memcmp(d->patterns[0]->bytes, "qoif", 4) == 0 && d->patterns[0]->relevance == 100,
          "magic pattern");
    CHECK(coder->probe && coder->decode && coder->encode && !coder->sniff && !coder->frames_open &&
              !coder->incremental_open,
          "slots agree with capabilities");
}

static void test_init_negotiation(void) {
    ip_host host = fake_host;
    uint32_t minor = 99;
    char text[128];
    ip_message message = {text, sizeof text};
    CHECK(entry->init(&fake_host, "/plugins.d/libTemplateCoder.so", 0, &minor, message) == IP_STATUS_OK && minor == 0, "minor %u for host 0", minor);
    CHECK(entry->init(&fake_host, "/plugins.d/libTemplateCoder.so", 7, &minor, message) == IP_STATUS_OK && minor == IP_ABI_MINOR,
          "minor %u for host 7", minor);
    host.abi_major = IP_ABI_MAJOR + 1;
    CHECK(entry->init(&host, "/plugins.d/libTemplateCoder.so", 0, &minor, message) == IP_STATUS_UNSUPPORTED, "another major is refused");
    host = fake_host;
    host.struct_size = (uint32_t)offsetof(ip_host, alloc_pixels);
    CHECK(entry->init(&host, "/plugins.d/libTemplateCoder.so", 0, &minor, message) == IP_STATUS_UNSUPPORTED && text[0] != 0,
          "a host table without alloc_pixels is refused with a message");
    CHECK(entry->init(&fake_host, "/plugins.d/libTemplateCoder.so", IP_ABI_MINOR, &minor, message) == IP_STATUS_OK, "re-init with the real host");
}

/* One hand-made stream using every op, checked against values worked out from the specification. */
static void test_every_op(void) {
    uint8_t data[64];
    size_t n = put_header(data, 4, 2, 4, 0);
    ip_decode_options options = default_options();
    ip_call call = {0};
    ip_image image;
    char message[256];
    ip_status status;
    static const uint8_t ops[] = {
        0xFE, 10, 20, 30,     /* RGB  -> 10,20,30,255 */
        0x72,                 /* DIFF dr=+1 dg=-2 db=0 -> 11,18,30,255 */
        0xAA, 0x5C,           /* LUMA dg=+10 dr-dg=-3 db-dg=+4 -> 18,28,44,255 */
        0xFF, 1, 2, 3, 128,   /* RGBA -> 1,2,3,128 */
        0xC2,                 /* RUN of 3 */
        0x09,                 /* INDEX 9 = hash(10,20,30,255) -> 10,20,30,255 */
    };
    memcpy(data + n, ops, sizeof ops);
    n += sizeof ops;
    n += put_end(data + n);
    status = decode(data, n, &options, &call, &image, message, sizeof message);
    CHECK(status == IP_STATUS_OK, "decode: %d %s", status, message);
    if (status == IP_STATUS_OK) {
        CHECK(image.width == 4 && image.height == 2 && image.format == IP_PIXEL_RGBA8, "size and format");
        CHECK(image.alpha_mode == IP_ALPHA_STRAIGHT, "4 channels -> straight alpha");
        CHECK(pixel_is(&image, 0, 0, 10, 20, 30, 255), "RGB");
        CHECK(pixel_is(&image, 1, 0, 11, 18, 30, 255), "DIFF");
        CHECK(pixel_is(&image, 2, 0, 18, 28, 44, 255), "LUMA");
        CHECK(pixel_is(&image, 3, 0, 1, 2, 3, 128), "RGBA");
        CHECK(pixel_is(&image, 0, 1, 1, 2, 3, 128) && pixel_is(&image, 2, 1, 1, 2, 3, 128), "RUN across a row");
        CHECK(pixel_is(&image, 3, 1, 10, 20, 30, 255), "INDEX");
    }
    call_end(&call);

    /* Wrap-around: from the implicit 0,0,0,255, DIFF dr=-1 gives red 255; then LUMA dg=-32 wraps green. */
    n = put_header(data, 2, 1, 3, 1);
    data[n++] = 0x40 | (1 << 4) | (2 << 2) | 2; /* dr=-1 */
    data[n++] = 0x80 | 0;                       /* dg=-32 */
    data[n++] = 0x88;                           /* dr-dg=0, db-dg=0 */
    n += put_end(data + n);
    status = decode(data, n, &options, &call, &image, message, sizeof message);
    CHECK(status == IP_STATUS_OK, "wrap decode: %d %s", status, message);
    if (status == IP_STATUS_OK) {
        CHECK(pixel_is(&image, 0, 0, 255, 0, 0, 255), "DIFF wraps below 0");
        CHECK(pixel_is(&image, 1, 0, 223, 224, 224, 255), "LUMA wraps below 0");
        CHECK(image.alpha_mode == IP_ALPHA_NONE, "3 channels -> no alpha");
    }
    call_end(&call);

    /* A 3-channel file whose stream still sets alpha: the output must stay opaque, as declared. */
    n = put_header(data, 1, 1, 3, 0);
    data[n++] = 0xFF, data[n++] = 5, data[n++] = 6, data[n++] = 7, data[n++] = 0;
    n += put_end(data + n);
    status = decode(data, n, &options, &call, &image, message, sizeof message);
    CHECK(status == IP_STATUS_OK && pixel_is(&image, 0, 0, 5, 6, 7, 255), "RGB file stays opaque");
    call_end(&call);
}

static void test_round_trips(void) {
    static const uint32_t sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {63, 5}, {64, 64}, {300, 17}, {1000, 3}};
    size_t s;
    int pattern, with_alpha;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (pattern = 0; pattern < 6; pattern++)
            for (with_alpha = 0; with_alpha < 2; with_alpha++) {
                uint32_t w = sizes[s][0], h = sizes[s][1];
                size_t stride = (size_t)w * 4 + 12; /* a padded input stride */
                uint8_t *pixels = malloc(stride * h);
                ip_image in, out;
                sink_buffer bytes = {0};
                ip_call call = {0};
                ip_decode_options options = default_options();
                char message[256];
                ip_status status;
                uint32_t x, y;
                int mismatches = 0;
                memset(&in, 0, sizeof in);
                in.struct_size = sizeof in;
                in.width = w;
                in.height = h;
                in.stride = (uint32_t)stride;
                in.format = IP_PIXEL_RGBA8;
                in.alpha_mode = with_alpha ? IP_ALPHA_STRAIGHT : IP_ALPHA_NONE;
                in.pixels = pixels;
                fill_pattern(pixels, w, h, stride, pattern);
                status = encode(&in, 1, &call, &bytes, message);
                CHECK(status == IP_STATUS_OK, "encode %ux%u/%d: %d %s", w, h, pattern, status, message);
                CHECK(bytes.size >= 22 && bytes.bytes[12] == (with_alpha ? 4 : 3), "channels byte");
                if (pattern == 2) CHECK(bytes.size < 14 + 8 + (w * h + 61) / 62 + 5, "solid images are runs");
                status = decode(bytes.bytes, bytes.size, &options, &call, &out, message, sizeof message);
                CHECK(status == IP_STATUS_OK, "decode %ux%u/%d: %d %s", w, h, pattern, status, message);
                if (status == IP_STATUS_OK) {
                    for (y = 0; y < h; y++)
                        for (x = 0; x < w; x++) {
                            const uint8_t *a = pixels + y * stride + x * 4;
                            const uint8_t *b = out.pixels + (size_t)y * out.stride + x * 4;
                            if (memcmp(a, b, 3) != 0 || b[3] != (with_alpha ? a[3] : 255)) mismatches++;
                        }
                    CHECK(mismatches == 0, "%ux%u pattern %d alpha %d: %d pixels differ", w, h, pattern,
                          with_alpha, mismatches);
                }
                call_end(&call);
                free(bytes.bytes);
                free(pixels);
            }
}

/* RGBA16 input is rounded to 8 bits; premultiplied input is un-premultiplied (QOI stores straight alpha). */
static void test_encode_conversions(void) {
    uint16_t wide[4] = {257 * 10, 257 * 200, 65535, 257 * 128};
    uint8_t premultiplied[4] = {64, 32, 0, 128};
    ip_image in, out;
    sink_buffer bytes = {0};
    ip_call call = {0};
    ip_decode_options options = default_options();
    char message[256];
    ip_status status;
    memset(&in, 0, sizeof in);
    in.struct_size = sizeof in;
    in.width = in.height = 1;
    in.stride = 8;
    in.format = IP_PIXEL_RGBA16;
    in.alpha_mode = IP_ALPHA_STRAIGHT;
    in.pixels = (uint8_t *)wide;
    status = encode(&in, 1, &call, &bytes, message);
    CHECK(status == IP_STATUS_OK, "RGBA16 encode: %s", message);
    status = decode(bytes.bytes, bytes.size, &options, &call, &out, message, sizeof message);
    CHECK(status == IP_STATUS_OK && pixel_is(&out, 0, 0, 10, 200, 255, 128), "RGBA16 -> 8 bit");
    call_end(&call);
    bytes.size = 0;

    in.stride = 4;
    in.format = IP_PIXEL_RGBA8;
    in.alpha_mode = IP_ALPHA_PREMULTIPLIED;
    in.pixels = premultiplied;
    status = encode(&in, 1, &call, &bytes, message);
    status = status == IP_STATUS_OK ? decode(bytes.bytes, bytes.size, &options, &call, &out, message, sizeof message)
                                    : status;
    CHECK(status == IP_STATUS_OK && pixel_is(&out, 0, 0, 128, 64, 0, 128), "premultiplied -> straight");
    call_end(&call);
    free(bytes.bytes);
}

static void test_truncation(void) {
    size_t size, cut;
    uint8_t *bytes = encode_pattern(37, 23, 1, IP_ALPHA_STRAIGHT, &size);
    ip_decode_options options = default_options();
    int wrong = 0;
    if (bytes == NULL) return;
    for (cut = 0; cut < size; cut++) {
        ip_call call = {0};
        ip_image image;
        char message[256];
        ip_status status = decode(bytes, cut, &options, &call, &image, message, sizeof message);
        if (status != IP_STATUS_TRUNCATED || message[0] == 0) {
            if (wrong++ < 5) fprintf(stderr, "  prefix %zu: status %d (%s)\n", cut, status, message);
        }
        call_end(&call);
    }
    CHECK(wrong == 0, "%d of %zu prefixes were not reported as TRUNCATED with a message", wrong, size);
    free(bytes);
}

static void test_corruption(void) {
    size_t size;
    uint8_t *bytes = encode_pattern(40, 30, 4, IP_ALPHA_STRAIGHT, &size);
    uint8_t *copy;
    int i, unexpected = 0;
    ip_decode_options options = default_options();
    if (bytes == NULL) return;
    copy = malloc(size);
    for (i = 0; i < 3000; i++) {
        ip_call call = {0};
        ip_image image;
        char message[256];
        ip_status status;
        int flips = 1 + (int)(next_random() % 4), f;
        size_t length = i % 3 == 0 ? 14 + next_random() % (size - 14) : size;
        memcpy(copy, bytes, size);
        for (f = 0; f < flips; f++) copy[14 + next_random() % (size - 14)] ^= (uint8_t)(1u << (next_random() % 8));
        if (i % 7 == 0) copy[4 + next_random() % 10] = (uint8_t)next_random(); /* the header too */
        status = decode(copy, length, &options, &call, &image, message, sizeof message);
        if (status != IP_STATUS_OK && status != IP_STATUS_INVALID_DATA && status != IP_STATUS_TRUNCATED &&
            status != IP_STATUS_LIMIT_EXCEEDED)
            unexpected++;
        if (status != IP_STATUS_OK && message[0] == 0) unexpected++;
        call_end(&call);
    }
    CHECK(unexpected == 0, "%d corrupt inputs gave an unexpected status or no message", unexpected);
    free(copy);
    free(bytes);
}

static void test_malformed_headers_and_streams(void) {
    uint8_t data[64];
    size_t n;
    ip_decode_options options = default_options();
    ip_call call = {0};
    ip_image image;
    char message[256];

    CHECK(decode((const uint8_t *)"\x89PNG\r\n\x1a\n", 8, &options, &call, &image, message, 256) ==
              IP_STATUS_INVALID_DATA && strstr(message, "not a QOI") != NULL,
          "wrong magic: %s", message);
    n = put_header(data, 0, 5, 4, 0) + put_end(data + 14);
    CHECK(decode(data, n, &options, &call, &image, message, 256) == IP_STATUS_INVALID_DATA, "zero width");
    n = put_header(data, 1, 1, 5, 0) + put_end(data + 14);
    CHECK(decode(data, n, &options, &call, &image, message, 256) == IP_STATUS_INVALID_DATA, "5 channels");
    n = put_header(data, 1, 1, 4, 2) + put_end(data + 14);
    CHECK(decode(data, n, &options, &call, &image, message, 256) == IP_STATUS_INVALID_DATA, "colorspace 2");

    n = put_header(data, 2, 1, 4, 0);
    data[n++] = 0xC0 | 5; /* a run of 6 in a 2-pixel image */
    n += put_end(data + n);
    CHECK(decode(data, n, &options, &call, &image, message, 256) == IP_STATUS_INVALID_DATA, "run overflow");
    n = put_header(data, 1, 1, 4, 0);
    data[n++] = 0x55;
    n += put_end(data + n);
    data[n - 1] = 2;
    CHECK(decode(data, n, &options, &call, &image, message, 256) == IP_STATUS_INVALID_DATA, "wrong end marker");
    CHECK(decode(data, n - 3, &options, &call, &image, message, 256) == IP_STATUS_TRUNCATED, "short end marker");
    call_end(&call);

    /* Messages are cut to the caller's capacity and stay NUL-terminated. */
    memset(message, 'x', sizeof message);
    CHECK(decode((const uint8_t *)"nope", 4, &options, &call, &image, message, 8) == IP_STATUS_INVALID_DATA &&
              strlen(message) == 7,
          "message fits its buffer");
    call_end(&call);
}

static void test_limits(void) {
    uint8_t data[32];
    size_t n, size;
    ip_decode_options options = default_options();
    ip_limits limits = no_limits();
    ip_call call = {0};
    ip_image image;
    char message[256];
    uint8_t *bytes;

    n = put_header(data, 5000, 5000, 4, 0) + put_end(data + 14);
    options.limits = &limits;
    limits.max_pixels = 1000000;
    CHECK(decode(data, n, &options, &call, &image, message, 256) == IP_STATUS_LIMIT_EXCEEDED &&
              call.allocations == 0 && strstr(message, "pixel limit") != NULL,
          "max_pixels refuses before allocating: %s", message);
    limits = no_limits();
    limits.max_dimension = 4999;
    CHECK(decode(data, n, &options, &call, &image, message, 256) == IP_STATUS_LIMIT_EXCEEDED &&
              call.allocations == 0, "max_dimension refuses before allocating: %s", message);
    limits = no_limits();
    n = put_header(data, 30000, 30000, 4, 0) + put_end(data + 14);
    CHECK(decode(data, n, &options, &call, &image, message, 256) == IP_STATUS_LIMIT_EXCEEDED &&
              call.allocations == 0, "the format's 400 MP limit: %s", message);
    n = put_header(data, 0xFFFFFFFFu, 0xFFFFFFFFu, 4, 0) + put_end(data + 14);
    CHECK(decode(data, n, &options, &call, &image, message, 256) == IP_STATUS_LIMIT_EXCEEDED &&
              call.allocations == 0, "a pixel count past 2^32: %s", message);

    bytes = encode_pattern(10, 10, 0, IP_ALPHA_NONE, &size);
    limits.max_input_bytes = size - 1;
    CHECK(decode(bytes, size, &options, &call, &image, message, 256) == IP_STATUS_LIMIT_EXCEEDED,
          "max_input_bytes");
    limits.max_input_bytes = size;
    CHECK(decode(bytes, size, &options, &call, &image, message, 256) == IP_STATUS_OK, "exactly at the limit");

    /* An older host whose options end before `limits`: the plugin must not follow the (garbage) pointer. */
    options = default_options();
    options.struct_size = (uint32_t)offsetof(ip_decode_options, limits);
    options.limits = (const ip_limits *)(uintptr_t)1;
    CHECK(decode(bytes, size, &options, &call, &image, message, 256) == IP_STATUS_OK,
          "fields past struct_size are ignored: %s", message);
    /* An older, smaller ip_limits (before max_input_bytes): what follows its struct_size is not read. */
    options = default_options();
    limits = no_limits();
    limits.struct_size = (uint32_t)offsetof(ip_limits, max_input_bytes);
    limits.max_input_bytes = 1;
    options.limits = &limits;
    CHECK(decode(bytes, size, &options, &call, &image, message, 256) == IP_STATUS_OK,
          "limits past their own struct_size are ignored: %s", message);
    CHECK(decode(bytes, size, NULL, &call, &image, message, 256) == IP_STATUS_OK, "NULL options mean defaults");
    call_end(&call);
    free(bytes);
}

static void test_cancellation(void) {
    size_t size;
    uint8_t *bytes = encode_pattern(64, 1000, 1, IP_ALPHA_STRAIGHT, &size);
    ip_decode_options options = default_options();
    ip_call call = {0};
    ip_image image;
    sink_buffer out = {0};
    char message[256];
    if (bytes == NULL) return;
    call.cancel_at_poll = 1;
    CHECK(decode(bytes, size, &options, &call, &image, message, 256) == IP_STATUS_CANCELLED && call.polls == 1,
          "decode stops at the first poll (polls %d)", call.polls);
    call_end(&call);
    CHECK(decode(bytes, size, &options, &call, &image, message, 256) == IP_STATUS_OK && call.polls >= 10,
          "decode polls while it works (polls %d)", call.polls);
    call_end(&call);

    CHECK(decode(bytes, size, &options, &call, &image, message, 256) == IP_STATUS_OK, "decode for encode");
    call.cancel_at_poll = call.polls + 1;
    CHECK(encode(&image, 1, &call, &out, message) == IP_STATUS_CANCELLED, "encode stops when cancelled");
    call_end(&call);
    free(out.bytes);
    free(bytes);
}

static void test_encode_refusals(void) {
    uint8_t pixels[16] = {0};
    ip_image image;
    sink_buffer out = {0};
    ip_call call = {0};
    char message[256];
    ip_status status;
    memset(&image, 0, sizeof image);
    image.struct_size = sizeof image;
    image.width = 2;
    image.height = 2;
    image.stride = 8;
    image.format = IP_PIXEL_RGBA8;
    image.pixels = pixels;
    CHECK(encode(&image, 2, &call, &out, message) == IP_STATUS_UNSUPPORTED, "two frames: %s", message);
    image.format = 99;
    CHECK(encode(&image, 1, &call, &out, message) == IP_STATUS_UNSUPPORTED, "unknown format: %s", message);
    image.format = IP_PIXEL_RGBA8;
    image.stride = 4;
    CHECK(encode(&image, 1, &call, &out, message) == IP_STATUS_INVALID_DATA, "short stride: %s", message);
    image.stride = 8;
    out.limit = 10;
    status = encode(&image, 1, &call, &out, message);
    CHECK(status == IP_STATUS_LIMIT_EXCEEDED, "a refusing sink's status comes back: %d %s", status, message);
    free(out.bytes);
}

static void test_probe(void) {
    size_t size;
    uint8_t *bytes = encode_pattern(33, 44, 5, IP_ALPHA_STRAIGHT, &size);
    ip_decode_request request;
    ip_image_info info;
    char text[256];
    ip_message message = {text, sizeof text};
    ip_status status;
    if (bytes == NULL) return;
    memset(&request, 0, sizeof request);
    request.struct_size = sizeof request;
    request.data = bytes;
    request.size = 14; /* probe needs only the header */
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    status = coder->probe(&request, &info, message);
    CHECK(status == IP_STATUS_OK && info.width == 33 && info.height == 44 && info.has_alpha && info.bit_depth == 8 &&
              info.frame_count == 1 && info.page_count == 1 && info.loop_count == -1 && strcmp(info.format, "qoi") == 0 &&
              strstr(info.details, "RGBA") != NULL,
          "probe: %d %ux%u %s (%s)", status, info.width, info.height, info.format, info.details);
    /* An older, shorter info struct: nothing past its end may be written. */
    memset(&info, 0x5A, sizeof info);
    info.struct_size = (uint32_t)offsetof(ip_image_info, frame_count);
    status = coder->probe(&request, &info, message);
    CHECK(status == IP_STATUS_OK && info.width == 33 && info.frame_count == 0x5A5A5A5Au && info.format[0] == 0x5A,
          "probe honours a short info struct_size");
    free(bytes);
}

typedef struct thread_job {
    const uint8_t *bytes;
    size_t size;
    const uint8_t *expected;
    size_t expected_size;
    int failures;
} thread_job;

static void *decode_repeatedly(void *argument) {
    thread_job *job = argument;
    int i;
    for (i = 0; i < 30; i++) {
        ip_decode_options options = default_options();
        ip_call call = {0};
        ip_image image;
        char message[256];
        if (decode(job->bytes, job->size, &options, &call, &image, message, sizeof message) != IP_STATUS_OK ||
            memcmp(image.pixels, job->expected, job->expected_size) != 0)
            job->failures++;
        call_end(&call);
    }
    return NULL;
}

static void test_concurrent_decodes(void) {
    size_t size;
    uint8_t *bytes = encode_pattern(200, 150, 4, IP_ALPHA_STRAIGHT, &size);
    ip_decode_options options = default_options();
    ip_call call = {0};
    ip_image image;
    char message[256];
    pthread_t threads[4];
    thread_job jobs[4];
    int i, failures = 0;
    if (bytes == NULL) return;
    CHECK(decode(bytes, size, &options, &call, &image, message, 256) == IP_STATUS_OK, "reference decode");
    for (i = 0; i < 4; i++) {
        jobs[i].bytes = bytes;
        jobs[i].size = size;
        jobs[i].expected = image.pixels;
        jobs[i].expected_size = (size_t)image.stride * image.height;
        jobs[i].failures = 0;
        pthread_create(&threads[i], NULL, decode_repeatedly, &jobs[i]);
    }
    for (i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        failures += jobs[i].failures;
    }
    CHECK(failures == 0, "%d concurrent decodes differed", failures);
    call_end(&call);
    free(bytes);
}

int main(int argc, char **argv) {
    static const struct {
        const char *name;
        void (*run)(void);
    } tests[] = {
        {"entry and descriptor", test_entry_and_descriptor},
        {"init negotiation", test_init_negotiation},
        {"every op", test_every_op},
        {"round trips", test_round_trips},
        {"encode conversions", test_encode_conversions},
        {"truncation", test_truncation},
        {"corruption", test_corruption},
        {"malformed headers and streams", test_malformed_headers_and_streams},
        {"limits", test_limits},
        {"cancellation", test_cancellation},
        {"encode refusals", test_encode_refusals},
        {"probe", test_probe},
        {"concurrent decodes", test_concurrent_decodes},
    };
    void *library;
    ip_plugin_entry_function entry_function;
    const ip_coder_factory *factory;
    uint32_t minor = 0;
    char text[256] = "";
    ip_message message = {text, sizeof text};
    size_t i;
    int passed = 0, failed = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: %s path/to/libTemplateCoder.so\n", argv[0]);
        return 2;
    }
    /* Exactly how the host opens a plugin. */
    library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (library == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    *(void **)&entry_function = dlsym(library, IP_ENTRY_SYMBOL);
    if (entry_function == NULL || (entry = entry_function()) == NULL) {
        fprintf(stderr, "no %s in %s\n", IP_ENTRY_SYMBOL, argv[1]);
        return 1;
    }
    /* get_factory works before init; the coder functions need init's host table. */
    factory = entry->get_factory(IP_CODER_FACTORY_ID);
    if (factory == NULL || factory->coder_count != 1 || entry->init == NULL ||
        entry->init(&fake_host, "/plugins.d/libTemplateCoder.so", IP_ABI_MINOR, &minor, message) != IP_STATUS_OK) {
        fprintf(stderr, "cannot set the plugin up: %s\n", text);
        return 1;
    }
    coder = factory->coders[0];

    for (i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        int before = checks_failed;
        tests[i].run();
        if (checks_failed == before) {
            passed++;
            printf("ok   %s\n", tests[i].name);
        } else {
            failed++;
            printf("FAIL %s\n", tests[i].name);
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
