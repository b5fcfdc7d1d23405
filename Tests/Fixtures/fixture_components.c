/* A test plugin of ABI 1.1 that fills only the slots 1.1 appended, compiled by the tests with cc.
 *
 * - Six coders (more than PluginKit could once build) share ONE set of "2" functions: each finds which coder it
 *   serves from the table pointer it is handed, and decodes any input to a 1x1 image whose red channel is
 *   10 * (index + 1), so a test can tell that every coder was called through its own table.
 * - One loader for "fixture:" URLs with configured instances (open / start2 / close): the body it serves is the
 *   instance's "body=" key; an unknown key fails the open naming the key. It reports two header lines before the
 *   response, and "fixture://hop" first asks the host whether to follow a redirect to "fixture://target".
 * - One cache whose open2 checks the pointer it is handed and whose store answers the key "configuration" with
 *   the configuration it was opened with.
 * A 1.0 host would find the 1.0 slots empty, so init refuses it (coder.h's rule).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "imagepipe/imagepipe.h"

static const ip_host *g_host;

static void say(ip_message message, const char *text) {
    if (message.buffer && message.capacity) {
        strncpy(message.buffer, text, message.capacity - 1);
        message.buffer[message.capacity - 1] = 0;
    }
}

/* ---- Coders ---- */

static const char *const no_strings[] = {NULL};
#define FIXTURE_CODER(n)                                                                                             \
    static const ip_magic_pattern pattern##n = {sizeof(ip_magic_pattern), 0, 4, (const uint8_t *)"CMP" #n, NULL,  \
                                                100, 0, 0};                                                          \
    static const ip_magic_pattern *const patterns##n[] = {&pattern##n};                                              \
    static const ip_coder_descriptor descriptor##n = {                                                               \
        .struct_size = sizeof(ip_coder_descriptor), .id = "org.imagepipe.test.components.coder" #n "/1",            \
        .name = "Component coder " #n, .version = "1.0.0", .format = "cmp" #n, .mime_types = no_strings,            \
        .extensions = no_strings, .capabilities = IP_CODER_CAN_DECODE | IP_CODER_THREAD_SAFE, .priority = 100,      \
        .pattern_count = 1, .patterns = patterns##n, .sniff_bytes = 4};

FIXTURE_CODER(0)
FIXTURE_CODER(1)
FIXTURE_CODER(2)
FIXTURE_CODER(3)
FIXTURE_CODER(4)
FIXTURE_CODER(5)

static const ip_coder coder_tables[6];

static int coder_index(const ip_coder *coder) {
    for (int i = 0; i < 6; i++) {
        if (coder == &coder_tables[i]) return i;
    }
    return -1;
}

static ip_status probe2(const ip_coder *coder, const ip_decode_request *request, ip_image_info *info, ip_message message) {
    (void)request;
    int index = coder_index(coder);
    if (index < 0) {
        say(message, "probe2 was handed a table this plugin did not make");
        return IP_STATUS_INTERNAL;
    }
    info->width = 1;
    info->height = 1;
    info->frame_count = 1;
    info->page_count = 1;
    info->loop_count = -1;
    info->bit_depth = 8;
    strcpy(info->format, coder->descriptor->format);
    return IP_STATUS_OK;
}

static ip_status decode2(const ip_coder *coder, const ip_decode_request *request, ip_image *image, ip_message message) {
    int index = coder_index(coder);
    if (index < 0) {
        say(message, "decode2 was handed a table this plugin did not make");
        return IP_STATUS_INTERNAL;
    }
    ip_status status = g_host->alloc_pixels(g_host, request->call, 1, 1, IP_PIXEL_RGBA8, image);
    if (status != IP_STATUS_OK) return status;
    image->pixels[0] = (uint8_t)(10 * (index + 1));
    image->pixels[1] = 0;
    image->pixels[2] = 0;
    image->pixels[3] = 255;
    image->alpha_mode = IP_ALPHA_STRAIGHT;
    return IP_STATUS_OK;
}

#define FIXTURE_CODER_TABLE(n) \
    {.struct_size = sizeof(ip_coder), .descriptor = &descriptor##n, .probe2 = probe2, .decode2 = decode2}
static const ip_coder coder_tables[6] = {
    FIXTURE_CODER_TABLE(0), FIXTURE_CODER_TABLE(1), FIXTURE_CODER_TABLE(2),
    FIXTURE_CODER_TABLE(3), FIXTURE_CODER_TABLE(4), FIXTURE_CODER_TABLE(5),
};
static const ip_coder *const coders[] = {&coder_tables[0], &coder_tables[1], &coder_tables[2],
                                         &coder_tables[3], &coder_tables[4], &coder_tables[5]};
static const ip_coder_factory coder_factory = {sizeof(ip_coder_factory), 6, coders};

/* ---- Loader ---- */

struct ip_loader_instance {
    char *body;
};
struct ip_load_task {
    int unused;
};

static const char *const loader_schemes[] = {"fixture", NULL};
static const ip_loader_descriptor loader_descriptor = {
    sizeof(ip_loader_descriptor), "org.imagepipe.test.components.loader/1", "Component loader", "1.0.0",
    loader_schemes, IP_LOADER_THREAD_SAFE, 100,
};
static const ip_loader loader_table;

static ip_status loader_open(const ip_loader *loader, const char *configuration, ip_loader_instance **instance,
                             ip_message message) {
    if (loader != &loader_table) {
        say(message, "open was handed a table this plugin did not make");
        return IP_STATUS_INTERNAL;
    }
    const char *body = "default body";
    size_t body_length = strlen(body);
    const char *line = configuration ? configuration : "";
    while (*line) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        if (length > 5 && strncmp(line, "body=", 5) == 0) {
            body = line + 5;
            body_length = length - 5;
        } else if (length > 0) {
            char text[160];
            snprintf(text, sizeof text, "unknown configuration key '%.*s' (known keys: body)",
                     (int)(memchr(line, '=', length) ? (size_t)((const char *)memchr(line, '=', length) - line) : length),
                     line);
            say(message, text);
            return IP_STATUS_UNSUPPORTED;
        }
        line += length + (end ? 1 : 0);
    }
    ip_loader_instance *made = calloc(1, sizeof *made);
    if (!made || !(made->body = calloc(1, body_length + 1))) {
        free(made);
        return IP_STATUS_NO_MEMORY;
    }
    memcpy(made->body, body, body_length);
    *instance = made;
    return IP_STATUS_OK;
}

/* Everything happens inside start2 (loader.h allows the callbacks to run synchronously there). */
static ip_status loader_start2(ip_loader_instance *instance, const ip_load_request *request,
                               const ip_load_callbacks *callbacks, ip_load_task **task, ip_message message) {
    if (!instance || !request || !request->url || !callbacks || !task) {
        say(message, "start2 without an instance, a request, callbacks or a task slot");
        return IP_STATUS_INTERNAL;
    }
    /* Only the fields the host's struct_size covers exist (a 1.0 host's table ends after complete). */
    int has_11 = callbacks->struct_size >= offsetof(ip_load_callbacks, redirect) + sizeof callbacks->redirect;
    *task = calloc(1, sizeof **task);
    if (!*task) return IP_STATUS_NO_MEMORY;
    const char *url = request->url;
    if (strcmp(url, "fixture://hop") == 0) {
        if (has_11 && callbacks->redirect && callbacks->redirect(callbacks->context, 302, "fixture://target") != 0) {
            callbacks->complete(callbacks->context, IP_STATUS_REFUSED, "the host refused the redirect to fixture://target");
            return IP_STATUS_OK;
        }
        url = "fixture://target";
    }
    size_t size = strlen(instance->body);
    if (has_11 && callbacks->header) {
        char length[32];
        snprintf(length, sizeof length, "%zu", size);
        if (callbacks->header(callbacks->context, "ETag", "\"fixture-v1\"") != 0 ||
            callbacks->header(callbacks->context, "X-Body-Length", length) != 0) {
            callbacks->complete(callbacks->context, IP_STATUS_CANCELLED, "the host rejected a header");
            return IP_STATUS_OK;
        }
    }
    if (callbacks->response && callbacks->response(callbacks->context, 200, (int64_t)size, "text/plain", url) != 0) {
        callbacks->complete(callbacks->context, IP_STATUS_CANCELLED, "the host rejected the response");
        return IP_STATUS_OK;
    }
    if (callbacks->data && callbacks->data(callbacks->context, (const uint8_t *)instance->body, size) != 0) {
        callbacks->complete(callbacks->context, IP_STATUS_CANCELLED, "the host stopped the transfer");
        return IP_STATUS_OK;
    }
    callbacks->complete(callbacks->context, IP_STATUS_OK, "");
    return IP_STATUS_OK;
}

static void loader_close(ip_loader_instance *instance) {
    if (!instance) return;
    free(instance->body);
    free(instance);
}
static void loader_cancel(ip_load_task *task) { (void)task; }
static void loader_release(ip_load_task *task) { free(task); }

static const ip_loader loader_table = {
    .struct_size = sizeof(ip_loader), .descriptor = &loader_descriptor, .cancel = loader_cancel,
    .release = loader_release, .open = loader_open, .start2 = loader_start2, .close = loader_close,
};
static const ip_loader *const loaders[] = {&loader_table};
static const ip_loader_factory loader_factory = {sizeof(ip_loader_factory), 1, loaders};

/* ---- Cache ---- */

struct ip_cache_store {
    char *configuration;
};
static const ip_cache_descriptor cache_descriptor = {
    sizeof(ip_cache_descriptor), "org.imagepipe.test.components.cache/1", "Component cache", "1.0.0", 0, 100,
};
static const ip_cache cache_table;

static ip_status cache_open2(const ip_cache *cache, const char *configuration, ip_cache_store **store, ip_message message) {
    if (cache != &cache_table) {
        say(message, "open2 was handed a table this plugin did not make");
        return IP_STATUS_INTERNAL;
    }
    const char *text = configuration ? configuration : "";
    ip_cache_store *made = calloc(1, sizeof *made);
    if (!made || !(made->configuration = calloc(1, strlen(text) + 1))) {
        free(made);
        return IP_STATUS_NO_MEMORY;
    }
    memcpy(made->configuration, text, strlen(text));
    *store = made;
    return IP_STATUS_OK;
}
static ip_status cache_get(ip_cache_store *store, const char *key, const ip_byte_sink *sink, ip_message message) {
    (void)message;
    if (strcmp(key, "configuration") != 0) return IP_STATUS_NOT_FOUND;
    return sink->write(sink->context, (const uint8_t *)store->configuration, strlen(store->configuration));
}
static ip_status cache_put(ip_cache_store *store, const char *key, const uint8_t *data, size_t size, ip_message message) {
    (void)store; (void)key; (void)data; (void)size; (void)message;
    return IP_STATUS_OK;
}
static ip_status cache_remove(ip_cache_store *store, const char *key, ip_message message) {
    (void)store; (void)key; (void)message;
    return IP_STATUS_OK;
}
static void cache_close(ip_cache_store *store) {
    if (!store) return;
    free(store->configuration);
    free(store);
}
static const ip_cache cache_table = {
    .struct_size = sizeof(ip_cache), .descriptor = &cache_descriptor, .get = cache_get, .put = cache_put,
    .remove = cache_remove, .close = cache_close, .open2 = cache_open2,
};
static const ip_cache *const caches[] = {&cache_table};
static const ip_cache_factory cache_factory = {sizeof(ip_cache_factory), 1, caches};

/* ---- Entry ---- */

static ip_status plugin_init(const ip_host *host, const char *plugin_path, uint32_t host_minor, uint32_t *plugin_minor,
                             ip_message message) {
    (void)plugin_path;
    if (host_minor < 1) {
        say(message, "this plugin fills only ABI 1.1 slots; the host speaks 1.0");
        return IP_STATUS_UNSUPPORTED;
    }
    g_host = host;
    *plugin_minor = host_minor < IP_ABI_MINOR ? host_minor : IP_ABI_MINOR;
    return IP_STATUS_OK;
}

static const void *get_factory(const char *id) {
    if (strcmp(id, IP_CODER_FACTORY_ID) == 0) return &coder_factory;
    if (strcmp(id, IP_LOADER_FACTORY_ID) == 0) return &loader_factory;
    if (strcmp(id, IP_CACHE_FACTORY_ID) == 0) return &cache_factory;
    return NULL;
}

static const ip_plugin_entry entry = {
    sizeof(ip_plugin_entry), IP_ABI_MAJOR, IP_ABI_MINOR, "org.imagepipe.test.components", "Components fixture", "1.0.0",
    "imagepipe tests", "ABI 1.1 slots only: six coders on one set of functions, a configured loader, a cache",
    plugin_init, NULL, get_factory, NULL,
};

__attribute__((visibility("default"))) const ip_plugin_entry *imagepipe_plugin_entry(void) { return &entry; }
