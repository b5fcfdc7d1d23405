/* A deliberately broken coder for the isolation tests, compiled by the tests with cc.
 *
 * It recognises inputs that start with "BROKEN:" and misbehaves as the rest of the input says, in probe and
 * decode alike, the way real decoders fail on hostile files:
 *   ok            a 3x2 RGBA image whose pixel (x, y) is (80x, 100y, 50, 255)
 *   segv          writes through a NULL pointer
 *   abort         abort(), as a Rust panic or a failed assertion
 *   exit          exit(3), as a library that gives up on the whole process
 *   stack         unbounded recursion (stack overflow)
 *   loop          spins forever, never polling cancellation
 *   sleep         blocks forever without using CPU
 *   poll          works (1 ms steps) until the host cancels the call, then returns CANCELLED, as a coder should
 *   alloc         allocates without bound; when malloc fails, aborts (as g_malloc and Rust's allocator do)
 *   alloc-status  allocates without bound; when malloc fails, frees everything and returns NO_MEMORY
 *   exec          tries to execve /bin/true and reports the error it got
 *   socket        tries to open an AF_INET socket and reports the error it got
 * It declares IP_CODER_RECOMMENDS_ISOLATION, so `automatic` isolation sends it to a worker. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "imagepipe/imagepipe.h"

static const ip_host *g_host;

static const char *const mime_types[] = {"application/x-imagepipe-broken", NULL};
static const char *const extensions[] = {"broken", NULL};
static const ip_magic_pattern pattern = {sizeof(ip_magic_pattern), 0, 7, (const uint8_t *)"BROKEN:", NULL, 100, 0, 0};
static const ip_magic_pattern *const patterns[] = {&pattern};
static const ip_coder_descriptor descriptor = {
    .struct_size = sizeof(ip_coder_descriptor), .id = "org.imagepipe.test.broken.coder/1", .name = "Broken coder",
    .version = "1.0.0", .format = "broken", .mime_types = mime_types, .extensions = extensions,
    .capabilities = IP_CODER_CAN_DECODE | IP_CODER_THREAD_SAFE | IP_CODER_RECOMMENDS_ISOLATION, .priority = 100,
    .pattern_count = 1, .patterns = patterns, .sniff_bytes = 16,
};

static int is_mode(const ip_decode_request *request, const char *mode) {
    size_t length = strlen(mode);
    return request->size == 7 + length && memcmp(request->data + 7, mode, length) == 0;
}

static void say(ip_message message, const char *text) {
    if (message.capacity) snprintf(message.buffer, message.capacity, "%s", text);
}

/* Recurses while `depth` is below a bound no stack can hold (the bound only silences -Winfinite-recursion). */
static int recurse(unsigned long depth) {
    volatile char frame[4096];
    frame[0] = (char)depth;
    if (depth > (1ul << 40)) return frame[0];
    return recurse(depth + 1) + frame[0];
}

/* Does what the mode says; returns OK for "ok", else an error status (when the mode lets it return at all). */
static ip_status misbehave(const ip_decode_request *request, ip_message message) {
    char text[256];
    if (is_mode(request, "ok")) return IP_STATUS_OK;
    if (is_mode(request, "segv")) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    }
    if (is_mode(request, "abort")) abort();
    if (is_mode(request, "exit")) exit(3);
    if (is_mode(request, "stack")) return (ip_status)recurse(0);
    if (is_mode(request, "loop")) {
        volatile unsigned long spin = 0;
        for (;;) spin++;
    }
    if (is_mode(request, "poll")) {
        while (!g_host->is_cancelled(g_host, request->call)) {
            struct timespec step = {0, 1000000};
            nanosleep(&step, NULL);
        }
        say(message, "cancelled");
        return IP_STATUS_CANCELLED;
    }
    if (is_mode(request, "sleep")) {
        for (;;) {
            struct timespec second = {1, 0};
            nanosleep(&second, NULL);
        }
    }
    if (is_mode(request, "alloc") || is_mode(request, "alloc-status")) {
        void **blocks = NULL;
        size_t count = 0;
        for (;;) {
            void *block = malloc(64u << 20);
            void **grown = block ? realloc(blocks, (count + 1) * sizeof(void *)) : NULL;
            if (!block || !grown) {
                if (is_mode(request, "alloc")) abort();
                free(block);
                while (count) free(blocks[--count]);
                free(blocks);
                say(message, "out of memory");
                return IP_STATUS_NO_MEMORY;
            }
            blocks = grown;
            blocks[count++] = block;
            memset(block, 1, 4096);
        }
    }
    if (is_mode(request, "exec")) {
        char *const argv[] = {(char *)"/bin/true", NULL};
        char *const envp[] = {NULL};
        execve("/bin/true", argv, envp);
        snprintf(text, sizeof text, "execve: %s", strerror(errno));
        say(message, text);
        return IP_STATUS_INTERNAL;
    }
    if (is_mode(request, "socket")) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd >= 0) {
            close(fd);
            say(message, "socket(AF_INET): allowed");
        } else {
            snprintf(text, sizeof text, "socket(AF_INET): %s", strerror(errno));
            say(message, text);
        }
        return IP_STATUS_INTERNAL;
    }
    say(message, "unknown mode");
    return IP_STATUS_INVALID_DATA;
}

static ip_status probe(const ip_decode_request *request, ip_image_info *info, ip_message message) {
    ip_status status = misbehave(request, message);
    if (status != IP_STATUS_OK) return status;
    info->width = 3;
    info->height = 2;
    info->frame_count = 1;
    info->page_count = 1;
    info->loop_count = -1;
    info->bit_depth = 8;
    strcpy(info->format, "broken");
    return IP_STATUS_OK;
}

static ip_status decode(const ip_decode_request *request, ip_image *image, ip_message message) {
    uint32_t x, y;
    ip_status status = misbehave(request, message);
    if (status != IP_STATUS_OK) return status;
    status = g_host->alloc_pixels(g_host, request->call, 3, 2, IP_PIXEL_RGBA8, image);
    if (status != IP_STATUS_OK) {
        say(message, "cannot allocate");
        return status;
    }
    for (y = 0; y < 2; y++) {
        for (x = 0; x < 3; x++) {
            uint8_t *p = image->pixels + y * image->stride + x * 4;
            p[0] = (uint8_t)(80 * x);
            p[1] = (uint8_t)(100 * y);
            p[2] = 50;
            p[3] = 255;
        }
    }
    image->alpha_mode = IP_ALPHA_STRAIGHT;
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
    g_host = host;
    const uint32_t built_minor = IP_ABI_MINOR;
    *plugin_minor = host_minor < built_minor ? host_minor : built_minor;
    return IP_STATUS_OK;
}

static const void *get_factory(const char *id) {
    return strcmp(id, IP_CODER_FACTORY_ID) == 0 ? &factory : NULL;
}

static const ip_plugin_entry entry = {
    sizeof(ip_plugin_entry), IP_ABI_MAJOR, IP_ABI_MINOR, "org.imagepipe.test.broken", "Broken", "1.0.0",
    "imagepipe tests", "a coder that crashes, hangs or eats memory on purpose", plugin_init, NULL, get_factory, NULL,
};

__attribute__((visibility("default"))) const ip_plugin_entry *imagepipe_plugin_entry(void) { return &entry; }
