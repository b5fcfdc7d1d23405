/* A coder that is correct by default and broken on purpose with one BROKEN_* define, for the tests of
 * `imagepipe plugin test` and of crash-safe scanning (compiled by the tests with cc, like fixture_plugin.c).
 *
 * Format "brkn": the 4 bytes "BRKN", then width and height as one byte each (1..255); the image is that size,
 * every pixel (x, y, 128, 255). Files are named *.brkn.
 *
 *   BROKEN_SEGFAULT_IN_DECODE   decode writes through a NULL pointer
 *   BROKEN_INFINITE_LOOP        decode never returns
 *   BROKEN_WRITES_PAST_BUFFER   decode writes one pixel past the end of its alloc_pixels buffer
 *   BROKEN_CHANGES_LOCALE       decode calls setlocale(LC_NUMERIC, "C.UTF-8")
 *   BROKEN_ENCODE_CLAIM         the descriptor claims CAN_ENCODE without an encode slot
 *   BROKEN_LEAKS_FD             every decode opens /dev/null and never closes it
 *   BROKEN_CRASH_IN_INIT        init writes through a NULL pointer (crashes whoever scans the plugin)
 *   BROKEN_HANG_IN_INIT         init never returns
 *   BROKEN_FOREIGN_ICC          decode reports an ICC profile in its own static memory, not from alloc_bytes
 *   BROKEN_FOREIGN_HOST         decode calls alloc_pixels with a copy of the host table, not the one init received
 *   BROKEN_TRUSTS_EXTENSIONS    decode treats any decode extension as a tint, without looking at its ID
 *   BROKEN_WRITES_PAST_INFO     probe writes a field past the ip_image_info struct_size the host gave (as a plugin
 *                               built for a later minor might, using its own sizeof)
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include "imagepipe/imagepipe.h"

#ifndef BROKEN_ID
#define BROKEN_ID "org.imagepipe.test.broken"
#endif

static const ip_host *g_host;

static void set_message(ip_message message, const char *text) {
    if (message.capacity == 0) return;
    strncpy(message.buffer, text, message.capacity - 1);
    message.buffer[message.capacity - 1] = 0;
}

#ifdef BROKEN_ENCODE_CLAIM
#define CAPABILITIES (IP_CODER_CAN_DECODE | IP_CODER_CAN_ENCODE | IP_CODER_THREAD_SAFE)
#else
#define CAPABILITIES (IP_CODER_CAN_DECODE | IP_CODER_THREAD_SAFE)
#endif

static const char *const mime_types[] = {"image/x-imagepipe-brkn", NULL};
static const char *const extensions[] = {"brkn", NULL};
static const ip_magic_pattern pattern = {sizeof(ip_magic_pattern), 0, 4, (const uint8_t *)"BRKN", NULL, 100, 0, 0};
static const ip_magic_pattern *const patterns[] = {&pattern};
static const ip_coder_descriptor descriptor = {
    .struct_size = sizeof(ip_coder_descriptor), .id = BROKEN_ID ".coder/1", .name = "Broken fixture coder",
    .version = "1.0.0", .format = "brkn", .mime_types = mime_types, .extensions = extensions,
    .capabilities = CAPABILITIES, .priority = 100, .pattern_count = 1, .patterns = patterns, .sniff_bytes = 6,
};

/* Reads the header; OK with the size, or an error status with a message. */
static ip_status read_header(const ip_decode_request *request, uint32_t *width, uint32_t *height, ip_message message) {
    if (request->size < 4 || memcmp(request->data, "BRKN", 4) != 0) {
        set_message(message, request->size < 4 ? "shorter than the 4-byte magic" : "not a brkn file (no BRKN magic)");
        return request->size < 4 ? IP_STATUS_TRUNCATED : IP_STATUS_INVALID_DATA;
    }
    if (request->size < 6) {
        set_message(message, "the header ends before width and height");
        return IP_STATUS_TRUNCATED;
    }
    *width = request->data[4];
    *height = request->data[5];
    if (*width == 0 || *height == 0) {
        set_message(message, "width and height must be 1..255");
        return IP_STATUS_INVALID_DATA;
    }
    return IP_STATUS_OK;
}

static ip_status probe(const ip_decode_request *request, ip_image_info *info, ip_message message) {
    uint32_t width, height;
    ip_status status = read_header(request, &width, &height, message);
    if (status != IP_STATUS_OK) return status;
    info->width = width;
    info->height = height;
    info->frame_count = 1;
    info->page_count = 1;
    info->loop_count = -1;
    info->bit_depth = 8;
    info->has_alpha = 0;
    strcpy(info->format, "brkn");
#ifdef BROKEN_WRITES_PAST_INFO
    ((uint8_t *)info)[info->struct_size + 8] = 1;
#endif
    return IP_STATUS_OK;
}

static ip_status decode(const ip_decode_request *request, ip_image *image, ip_message message) {
    uint32_t width, height, x, y;
    const ip_decode_options *options = request->options;
    ip_status status = read_header(request, &width, &height, message);
    if (status != IP_STATUS_OK) return status;
    if (options && (options->page_index > 0 || options->frame_index > 0)) {
        set_message(message, "a brkn file has one page and one frame");
        return IP_STATUS_NOT_FOUND;
    }
    const ip_limits *limits = options ? options->limits : NULL;
    if (limits && limits->max_input_bytes && request->size > limits->max_input_bytes) {
        set_message(message, "the input exceeds max_input_bytes");
        return IP_STATUS_LIMIT_EXCEEDED;
    }
    if (limits && ((limits->max_pixels && (uint64_t)width * height > limits->max_pixels)
                   || (limits->max_dimension && (width > limits->max_dimension || height > limits->max_dimension)))) {
        set_message(message, "the image exceeds the limits");
        return IP_STATUS_LIMIT_EXCEEDED;
    }
#ifdef BROKEN_SEGFAULT_IN_DECODE
    *(volatile int *)0 = 1;
#endif
#ifdef BROKEN_INFINITE_LOOP
    for (volatile int spin = 0;; spin++) {
    }
#endif
#ifdef BROKEN_CHANGES_LOCALE
    setlocale(LC_NUMERIC, "C.UTF-8");
#endif
#ifdef BROKEN_LEAKS_FD
    (void)open("/dev/null", O_RDONLY);
#endif
#ifdef BROKEN_FOREIGN_HOST
    {
        ip_host copy = *g_host;
        status = g_host->alloc_pixels(&copy, request->call, width, height, IP_PIXEL_RGBA8, image);
    }
#else
    status = g_host->alloc_pixels(g_host, request->call, width, height, IP_PIXEL_RGBA8, image);
#endif
    if (status != IP_STATUS_OK) {
        set_message(message, "cannot allocate the image");
        return status;
    }
    for (y = 0; y < height; y++) {
        uint8_t *row = image->pixels + (size_t)y * image->stride;
        for (x = 0; x < width; x++) {
            row[x * 4 + 0] = (uint8_t)x;
            row[x * 4 + 1] = (uint8_t)y;
            row[x * 4 + 2] = 128;
            row[x * 4 + 3] = 255;
#ifdef BROKEN_TRUSTS_EXTENSIONS
            if (options && options->extensions) row[x * 4 + 2] = 0;  /* "tinted" by whatever extension came */
#endif
        }
    }
#ifdef BROKEN_WRITES_PAST_BUFFER
    memset(image->pixels + (size_t)height * image->stride, 0xAB, 4);
#endif
    image->alpha_mode = IP_ALPHA_NONE;
    image->duration_ms = 0;
    image->index = 0;
#ifdef BROKEN_FOREIGN_ICC
    static uint8_t profile[128];
    image->color_flags = IP_COLOR_ICC;
    image->icc_profile = profile;
    image->icc_size = sizeof profile;
#endif
    return IP_STATUS_OK;
}

static const ip_coder coder = {
    .struct_size = sizeof(ip_coder), .descriptor = &descriptor, .probe = probe, .decode = decode,
};
static const ip_coder *const coders[] = {&coder};
static const ip_coder_factory factory = {sizeof(ip_coder_factory), 1, coders};

static ip_status plugin_init(const ip_host *host, const char *plugin_path, uint32_t host_minor, uint32_t *plugin_minor,
                             ip_message message) {
    (void)plugin_path;
    (void)message;
#ifdef BROKEN_CRASH_IN_INIT
    *(volatile int *)0 = 1;
#endif
#ifdef BROKEN_HANG_IN_INIT
    for (volatile int spin = 0;; spin++) {
    }
#endif
    const uint32_t built_minor = IP_ABI_MINOR;
    g_host = host;
    *plugin_minor = host_minor < built_minor ? host_minor : built_minor;
    return IP_STATUS_OK;
}

static const void *get_factory(const char *id) {
    return strcmp(id, IP_CODER_FACTORY_ID) == 0 ? &factory : NULL;
}

static const ip_plugin_entry entry = {
    sizeof(ip_plugin_entry), IP_ABI_MAJOR, IP_ABI_MINOR, BROKEN_ID, "Broken fixture", "1.0.0", "imagepipe tests",
    "a coder broken on purpose (BROKEN_* defines)", plugin_init, NULL, get_factory, NULL,
};

__attribute__((visibility("default"))) const ip_plugin_entry *imagepipe_plugin_entry(void) { return &entry; }
