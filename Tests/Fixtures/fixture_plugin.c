/* A configurable test plugin for the host's tests, compiled by the tests with cc -D... .
 *
 * Well-formed by default: one coder that recognises FIXTURE_MAGIC at offset 0 and decodes any input to a
 * 2x1 image of colour FIXTURE_COLOR (so a test can tell which coder ran). BROKEN_* macros break exactly one
 * rule of the ABI each, to prove the host refuses that plugin with a clear reason. FIXTURE_FUTURE_MINOR=N builds it
 * as a plugin of a later minor (larger tables, a newer abi_minor): the compatibility kit's "newer plugin" case. */
#include <string.h>
#include "imagepipe/imagepipe.h"

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.imagepipe.test.fixture"
#endif
#ifndef FIXTURE_CODER_ID
#define FIXTURE_CODER_ID FIXTURE_ID ".coder/1"
#endif
#ifndef FIXTURE_FORMAT
#define FIXTURE_FORMAT "fixture"
#endif
#ifndef FIXTURE_MAGIC
#define FIXTURE_MAGIC "FIXT"
#endif
#ifndef FIXTURE_RELEVANCE
#define FIXTURE_RELEVANCE 100
#endif
#ifndef FIXTURE_PRIORITY
#define FIXTURE_PRIORITY 100
#endif
#ifndef FIXTURE_COLOR
#define FIXTURE_COLOR 0xFF0000FFu
#endif
#ifndef FIXTURE_PATTERN_FLAGS
#define FIXTURE_PATTERN_FLAGS 0
#endif
/* What sniff answers when the pattern asks for confirmation. */
#ifndef FIXTURE_SNIFF_STATUS
#define FIXTURE_SNIFF_STATUS IP_STATUS_OK
#endif

#ifdef FIXTURE_ANIMATED_OPEN_FAILS
#define FIXTURE_EXTRA_CAPS_EARLY IP_CODER_ANIMATED
#else
#define FIXTURE_EXTRA_CAPS_EARLY 0
#endif

static const ip_host *g_host;

static const char *const mime_types[] = {"application/x-imagepipe-fixture", NULL};
static const char *const extensions[] = {"fixture", NULL};
static const ip_magic_pattern pattern = {
    sizeof(ip_magic_pattern), 0, sizeof(FIXTURE_MAGIC) - 1, (const uint8_t *)FIXTURE_MAGIC, NULL, FIXTURE_RELEVANCE,
    FIXTURE_PATTERN_FLAGS, 0,
};
static const ip_magic_pattern *const patterns[] = {&pattern};
static const ip_coder_descriptor descriptor = {
    /* Designated: this file is also built against the frozen 1.0 headers (CompatibilityKitTests). */
    .struct_size = sizeof(ip_coder_descriptor), .id = FIXTURE_CODER_ID, .name = "Fixture coder", .version = "1.0.0",
    .format = FIXTURE_FORMAT, .mime_types = mime_types, .extensions = extensions,
    .capabilities = IP_CODER_CAN_DECODE | IP_CODER_THREAD_SAFE | FIXTURE_EXTRA_CAPS_EARLY, .priority = FIXTURE_PRIORITY,
    .pattern_count = 1, .patterns = patterns, .sniff_bytes = 16,
};

static ip_status sniff(const uint8_t *data, size_t size) {
    (void)data;
    (void)size;
    return FIXTURE_SNIFF_STATUS;
}

static ip_status probe(const ip_decode_request *request, ip_image_info *info, ip_message message) {
    (void)request;
    (void)message;
    info->width = 2;
    info->height = 1;
    info->frame_count = 1;
    info->page_count = 1;
    info->loop_count = -1;
    info->bit_depth = 8;
    strcpy(info->format, FIXTURE_FORMAT);
    return IP_STATUS_OK;
}

static ip_status decode(const ip_decode_request *request, ip_image *image, ip_message message) {
    uint32_t x;
    ip_status status = g_host->alloc_pixels(g_host, request->call, 2, 1, IP_PIXEL_RGBA8, image);
    if (status != IP_STATUS_OK) {
        if (message.capacity) strncpy(message.buffer, "cannot allocate", message.capacity - 1);
        return status;
    }
    for (x = 0; x < 2; x++) {
        image->pixels[x * 4 + 0] = (uint8_t)(FIXTURE_COLOR >> 24);
        image->pixels[x * 4 + 1] = (uint8_t)(FIXTURE_COLOR >> 16);
        image->pixels[x * 4 + 2] = (uint8_t)(FIXTURE_COLOR >> 8);
        image->pixels[x * 4 + 3] = (uint8_t)FIXTURE_COLOR;
    }
    image->alpha_mode = IP_ALPHA_STRAIGHT;
    return IP_STATUS_OK;
}

#ifdef FIXTURE_ANIMATED_OPEN_FAILS
/* Claims animation, but every frames_open fails: exercises the host's error path. */
static ip_status frames_open(const ip_decode_request *request, ip_frame_iterator **iterator, ip_message message) {
    (void)request;
    *iterator = NULL;
    if (message.capacity) strncpy(message.buffer, "no frames here", message.capacity - 1);
    return IP_STATUS_INVALID_DATA;
}
static ip_status frames_next(ip_frame_iterator *iterator, const ip_call *call, ip_image *frame, ip_message message) {
    (void)iterator; (void)call; (void)frame; (void)message;
    return IP_STATUS_END;
}
static void frames_close(ip_frame_iterator *iterator) { (void)iterator; }
#define FIXTURE_FRAMES .frames_open = frames_open, .frames_next = frames_next, .frames_close = frames_close
#else
#define FIXTURE_FRAMES .frames_open = NULL
#endif

#ifdef FIXTURE_FUTURE_MINOR
/* A plugin built against a later minor (FIXTURE_FUTURE_MINOR minors ahead): its tables are larger than this host's,
 * with slots appended after the ones the host knows, which hold values the host must never call. */
static void must_not_be_called(void) { __builtin_trap(); }
typedef struct future_coder {
    ip_coder known;
    void (*added_later[4])(void);
} future_coder;
static const future_coder coder_storage = {
    {.struct_size = sizeof(future_coder), .descriptor = &descriptor, .sniff = sniff, .probe = probe, .decode = decode,
     FIXTURE_FRAMES},
    {must_not_be_called, must_not_be_called, must_not_be_called, must_not_be_called},
};
#define CODER (&coder_storage.known)
#define BUILT_MINOR (IP_ABI_MINOR + FIXTURE_FUTURE_MINOR)
#else
static const ip_coder coder = {
    .struct_size = sizeof(ip_coder), .descriptor = &descriptor, .sniff = sniff, .probe = probe, .decode = decode,
    FIXTURE_FRAMES
};
#define CODER (&coder)
#define BUILT_MINOR IP_ABI_MINOR
#endif
static const ip_coder *const coders[] = {CODER};
static const ip_coder_factory factory = {sizeof(ip_coder_factory), 1, coders};

static ip_status plugin_init(const ip_host *host, const char *plugin_path, uint32_t host_minor, uint32_t *plugin_minor,
                             ip_message message) {
    (void)plugin_path;
#ifdef BROKEN_INIT_FAILS
    (void)host;
    (void)host_minor;
    (void)plugin_minor;
    strncpy(message.buffer, "the fixture refuses to start", message.capacity - 1);
    return IP_STATUS_UNSUPPORTED;
#else
    (void)message;
    g_host = host;
    const uint32_t built_minor = BUILT_MINOR;
    *plugin_minor = host_minor < built_minor ? host_minor : built_minor;
    return IP_STATUS_OK;
#endif
}

static const void *get_factory(const char *id) {
    return strcmp(id, IP_CODER_FACTORY_ID) == 0 ? &factory : NULL;
}

#if defined(BROKEN_SMALL_SIZE)
#define ENTRY_SIZE 8
#elif defined(BROKEN_HUGE_SIZE)
#define ENTRY_SIZE 1000000
#else
#define ENTRY_SIZE sizeof(ip_plugin_entry)
#endif
#ifdef BROKEN_ABI_MAJOR
#define ENTRY_MAJOR (IP_ABI_MAJOR + 1)
#else
#define ENTRY_MAJOR IP_ABI_MAJOR
#endif

#ifdef FIXTURE_FUTURE_MINOR
typedef struct future_entry {
    ip_plugin_entry known;
    void (*added_later[4])(void);
} future_entry;
static const future_entry entry_storage = {
    {sizeof(future_entry), ENTRY_MAJOR, BUILT_MINOR, FIXTURE_ID, "Fixture", "1.0.0", "imagepipe tests",
     "a configurable plugin for the host's tests", plugin_init, NULL, get_factory, NULL},
    {must_not_be_called, must_not_be_called, must_not_be_called, must_not_be_called},
};
#define entry (entry_storage.known)
#else
static const ip_plugin_entry entry = {
    ENTRY_SIZE, ENTRY_MAJOR, BUILT_MINOR, FIXTURE_ID, "Fixture", "1.0.0", "imagepipe tests",
    "a configurable plugin for the host's tests", plugin_init, NULL, get_factory, NULL,
};
#endif

#if defined(BROKEN_NO_ENTRY)
__attribute__((visibility("default"))) const ip_plugin_entry *some_other_symbol(void) { return &entry; }
#elif defined(BROKEN_NULL_ENTRY)
__attribute__((visibility("default"))) const ip_plugin_entry *imagepipe_plugin_entry(void) { return entry.struct_size ? NULL : NULL; }
#else
__attribute__((visibility("default"))) const ip_plugin_entry *imagepipe_plugin_entry(void) { return &entry; }
#endif
