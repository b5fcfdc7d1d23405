/* TemplateCoder — an imagepipe plugin in plain C, written to be copied.
 *
 * It adds the QOI format (https://qoiformat.org) to imagepipe: decode and encode. The format itself lives in
 * qoi_codec.c; this file is only the "glue" every plugin needs, in the order you would write it:
 *
 *   Step 1  remember the host's service table (init) and agree on an ABI minor version
 *   Step 2  small helpers: error messages, reading versioned structs safely
 *   Step 3  probe   — facts about a file without decoding its pixels
 *   Step 4  decode  — pixels into a buffer the HOST allocates
 *   Step 5  encode  — pixels into bytes written to the host's sink
 *   Step 6  static tables: descriptor (routing data), coder vtable, factory
 *   Step 7  the entry table and the ONE exported symbol, imagepipe_plugin_entry()
 *
 * To add your own format: copy this folder, replace qoi_codec.[ch] with your codec, and change the
 * descriptor in Step 6 (id, format, MIME type, extension, magic bytes, capabilities). The rules every plugin
 * must keep are in README.md; the ABI itself is documented in the headers of Sources/PluginAPI/include/imagepipe.
 */
#include <imagepipe/imagepipe.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qoi_codec.h"

/* Poll the host's cancellation flag this often. Polling is cheap, but not free; every 64 rows keeps a
 * cancelled 4000-row decode from running more than a couple of milliseconds longer. */
#define TEMPLATE_CANCEL_EVERY_ROWS 64

/* ---------------------------------------------------------------------------------------------------------
 * Step 1: the host's service table.
 *
 * init() runs once, on the host thread, before any coder function is called, and the table stays valid for
 * the life of the process. Afterwards this pointer is only read, so a plain static is enough: no lock, and
 * no other global state anywhere in the plugin (that is what makes IP_CODER_THREAD_SAFE honest).
 * ------------------------------------------------------------------------------------------------------- */
static const ip_host *template_host = NULL;

/* ---------------------------------------------------------------------------------------------------------
 * Step 2: helpers.
 * ------------------------------------------------------------------------------------------------------- */

/* Does a struct whose first field says it is `size` bytes long contain `field`? Every ABI struct starts with
 * struct_size so that an older host (smaller struct) and a newer one (larger struct) can both call us:
 * read a field only when the struct you were given is long enough to hold it, and use its default otherwise. */
#define TEMPLATE_HAS_FIELD(size, type, field) ((size) >= offsetof(type, field) + sizeof(((type *)0)->field))

/* Writes a printf-style message into the caller's buffer. The host shows it to the user, so say what was
 * wrong and with which values. snprintf never writes more than `capacity` bytes, NUL included. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void template_message(ip_message message, const char *format, ...) {
    va_list args;
    if (message.buffer == NULL || message.capacity == 0) return;
    va_start(args, format);
    vsnprintf(message.buffer, message.capacity, format, args);
    va_end(args);
}

/* The parts of a decode request we use, with every field the host's struct does not cover left at its
 * documented default (zero: no limits, no flags). */
typedef struct template_request {
    const uint8_t *data;
    size_t size;
    ip_decode_options options;
    /* The request's limits, copied within their own struct_size (options.limits points here). */
    ip_limits limits;
    const ip_call *call;
} template_request;

static ip_status template_read_request(const ip_decode_request *request, template_request *out,
                                       ip_message message) {
    memset(out, 0, sizeof *out);
    if (request == NULL || !TEMPLATE_HAS_FIELD(request->struct_size, ip_decode_request, size)) {
        template_message(message, "the host passed no decode request, or one too short to hold its data");
        return IP_STATUS_INTERNAL;
    }
    out->data = request->data;
    out->size = request->data != NULL ? request->size : 0;
    if (TEMPLATE_HAS_FIELD(request->struct_size, ip_decode_request, options) && request->options != NULL) {
        /* Copy only as many bytes as the host's options struct has; the rest stays zero. */
        size_t given = request->options->struct_size;
        memcpy(&out->options, request->options, given < sizeof out->options ? given : sizeof out->options);
    }
    out->options.struct_size = sizeof out->options;
    /* Sub-structs are pointers with their own struct_size: copy what the host's ip_limits holds, default the rest. */
    if (TEMPLATE_HAS_FIELD(out->options.struct_size, ip_decode_options, limits) && out->options.limits != NULL) {
        size_t given = out->options.limits->struct_size;
        memcpy(&out->limits, out->options.limits, given < sizeof out->limits ? given : sizeof out->limits);
    }
    out->limits.struct_size = sizeof out->limits;
    out->options.limits = &out->limits;
    if (TEMPLATE_HAS_FIELD(request->struct_size, ip_decode_request, call)) out->call = request->call;
    return IP_STATUS_OK;
}

/* Maps the codec's results onto the ABI's statuses. Every status returned to the host must be one of
 * status.h's codes: the host maps them 1:1 onto its Swift error enum. */
static ip_status template_status(qoi_result result) {
    switch (result) {
    case QOI_OK: return IP_STATUS_OK;
    case QOI_TRUNCATED: return IP_STATUS_TRUNCATED;
    case QOI_INVALID: return IP_STATUS_INVALID_DATA;
    case QOI_TOO_LARGE: return IP_STATUS_LIMIT_EXCEEDED;
    case QOI_STOPPED: return IP_STATUS_CANCELLED;
    }
    return IP_STATUS_INTERNAL;
}

static int template_cancelled(const ip_call *call) {
    return template_host->is_cancelled != NULL && template_host->is_cancelled(template_host, call) != 0;
}

/* Reads and checks the header, and refuses inputs larger than the caller allows before anything else. */
static ip_status template_read_header(const template_request *request, qoi_header *header, ip_message message) {
    uint64_t max_input = request->limits.max_input_bytes;
    qoi_result result;
    if (max_input != 0 && request->size > max_input) {
        template_message(message, "input of %zu bytes exceeds the limit of %llu bytes", request->size,
                         (unsigned long long)max_input);
        return IP_STATUS_LIMIT_EXCEEDED;
    }
    result = qoi_read_header(request->data, request->size, header, message.buffer, message.capacity);
    return template_status(result);
}

/* ---------------------------------------------------------------------------------------------------------
 * Step 3: probe. Fill in what the header says; never decode pixels here.
 * Thread tag [thread-safe]: we declared IP_CODER_THREAD_SAFE, so the host may call this concurrently.
 * ------------------------------------------------------------------------------------------------------- */
static ip_status template_probe(const ip_decode_request *raw, ip_image_info *info, ip_message message) {
    template_request request;
    qoi_header header;
    ip_status status = template_read_request(raw, &request, message);
    if (status != IP_STATUS_OK) return status;
    status = template_read_header(&request, &header, message);
    if (status != IP_STATUS_OK) return status;
    if (info == NULL) {
        template_message(message, "the host passed no image info to fill");
        return IP_STATUS_INTERNAL;
    }
    /* info->struct_size was set by the host: write only the fields it has room for. */
    if (TEMPLATE_HAS_FIELD(info->struct_size, ip_image_info, height)) {
        info->width = header.width;
        info->height = header.height;
    }
    if (TEMPLATE_HAS_FIELD(info->struct_size, ip_image_info, has_alpha)) {
        info->frame_count = 1;
        info->page_count = 1;
        info->loop_count = -1; /* a still image: the file states no loop count */
        info->bit_depth = 8;
        info->has_alpha = header.channels == 4;
    }
    if (TEMPLATE_HAS_FIELD(info->struct_size, ip_image_info, details)) {
        snprintf(info->format, sizeof info->format, "qoi");
        snprintf(info->details, sizeof info->details, "%s, %s", header.channels == 4 ? "RGBA" : "RGB",
                 header.colorspace == 0 ? "sRGB with linear alpha" : "all channels linear");
    }
    return IP_STATUS_OK;
}

/* ---------------------------------------------------------------------------------------------------------
 * Step 4: decode.
 *
 * Order matters: read the header, check the caller's limits, only THEN ask the host for memory. A hostile
 * 60000 x 60000 header must cost nothing. The buffer comes from host->alloc_pixels, never from malloc: the
 * host owns it, accounts for it and wraps it without copying. If we fail after allocating we simply return
 * the error — the host frees buffers that our result does not reference.
 * ------------------------------------------------------------------------------------------------------- */

/* Called by the codec after each row: poll cancellation every TEMPLATE_CANCEL_EVERY_ROWS rows. */
static int template_decode_row_done(void *context, uint32_t y) {
    const template_request *request = context;
    return (y + 1) % TEMPLATE_CANCEL_EVERY_ROWS == 0 && template_cancelled(request->call);
}

static ip_status template_decode(const ip_decode_request *raw, ip_image *image, ip_message message) {
    template_request request;
    qoi_header header;
    const ip_limits *limits = &request.limits;
    qoi_result result;
    ip_status status = template_read_request(raw, &request, message);
    if (status != IP_STATUS_OK) return status;
    if (template_host == NULL || image == NULL) {
        template_message(message, "decode called before init, or without an image to fill");
        return IP_STATUS_INTERNAL;
    }
    status = template_read_header(&request, &header, message);
    if (status != IP_STATUS_OK) return status;

    /* The caller's limits, before allocating (0 = no limit). */
    if (limits->max_dimension != 0 && (header.width > limits->max_dimension || header.height > limits->max_dimension)) {
        template_message(message, "%ux%u exceeds the dimension limit of %u", (unsigned)header.width,
                         (unsigned)header.height, (unsigned)limits->max_dimension);
        return IP_STATUS_LIMIT_EXCEEDED;
    }
    if (limits->max_pixels != 0 && (uint64_t)header.width * header.height > limits->max_pixels) {
        template_message(message, "%ux%u exceeds the pixel limit of %llu", (unsigned)header.width,
                         (unsigned)header.height, (unsigned long long)limits->max_pixels);
        return IP_STATUS_LIMIT_EXCEEDED;
    }

    /* QOI is 8 bits per channel, so RGBA8 is always the right output, even when IP_DECODE_HIGH_BIT_DEPTH is
     * set. We do not set IP_CODER_SCALES, so we decode at full size and the host makes the thumbnail. */
    status = template_host->alloc_pixels(template_host, request.call, header.width, header.height, IP_PIXEL_RGBA8, image);
    if (status != IP_STATUS_OK) {
        template_message(message, "cannot allocate a %ux%u image", (unsigned)header.width, (unsigned)header.height);
        return status;
    }
    result = qoi_decode(request.data, request.size, &header, image->pixels, image->stride,
                        template_decode_row_done, &request, message.buffer, message.capacity);
    if (result == QOI_STOPPED) template_message(message, "cancelled");
    if (result != QOI_OK) return template_status(result);

    /* Say honestly what the pixels are: a 3-channel file has no transparency at all. */
    if (TEMPLATE_HAS_FIELD(image->struct_size, ip_image, alpha_mode))
        image->alpha_mode = header.channels == 4 ? IP_ALPHA_STRAIGHT : IP_ALPHA_NONE;
    if (TEMPLATE_HAS_FIELD(image->struct_size, ip_image, index)) {
        image->duration_ms = 0;
        image->index = 0;
    }
    return IP_STATUS_OK;
}

/* ---------------------------------------------------------------------------------------------------------
 * Step 5: encode.
 *
 * The image is borrowed; we read it row by row, convert each row to the straight RGBA8 the codec wants,
 * and write the output through the host's sink. A sink may refuse (LIMIT_EXCEEDED, NO_MEMORY): we stop and
 * return what it said. Scratch memory that never leaves the plugin may come from malloc; free it yourself.
 * ------------------------------------------------------------------------------------------------------- */
typedef struct template_encoder {
    const ip_image *image;
    const ip_call *call;
    uint8_t *row;                 /* one converted row, width * 4 bytes */
    const ip_byte_sink *sink;
    ip_status status;             /* why we stopped, when we did */
} template_encoder;

/* 16-bit to 8-bit with rounding. */
static uint8_t template_to8(uint32_t v16) {
    return (uint8_t)((v16 * 255u + 32767u) / 65535u);
}

/* Undoes premultiplication (QOI stores straight alpha); max is 255 or 65535. */
static uint32_t template_unpremultiply(uint32_t c, uint32_t a, uint32_t max) {
    uint32_t v;
    if (a == 0) return 0;
    v = (uint32_t)(((uint64_t)c * max + a / 2) / a);
    return v > max ? max : v;
}

static const uint8_t *template_encode_row(void *context, uint32_t y) {
    template_encoder *e = context;
    const ip_image *image = e->image;
    const uint8_t *source = image->pixels + (size_t)y * image->stride;
    const int premultiplied = image->alpha_mode == IP_ALPHA_PREMULTIPLIED;
    uint32_t x;
    if (y % TEMPLATE_CANCEL_EVERY_ROWS == 0 && y > 0 && template_cancelled(e->call)) {
        e->status = IP_STATUS_CANCELLED;
        return NULL;
    }
    for (x = 0; x < image->width; x++) {
        uint8_t *out = e->row + (size_t)x * 4;
        if (image->format == IP_PIXEL_RGBA8) {
            const uint8_t *in = source + (size_t)x * 4;
            int c;
            for (c = 0; c < 3; c++)
                out[c] = premultiplied ? (uint8_t)template_unpremultiply(in[c], in[3], 255) : in[c];
            out[3] = in[3];
        } else { /* IP_PIXEL_RGBA16, native-endian */
            uint16_t in[4];
            int c;
            memcpy(in, source + (size_t)x * 8, sizeof in);
            for (c = 0; c < 3; c++)
                out[c] = template_to8(premultiplied ? template_unpremultiply(in[c], in[3], 65535) : in[c]);
            out[3] = template_to8(in[3]);
        }
    }
    return e->row;
}

static int template_encode_write(void *context, const uint8_t *bytes, size_t size) {
    template_encoder *e = context;
    e->status = e->sink->write(e->sink->context, bytes, size);
    return e->status != IP_STATUS_OK;
}

static ip_status template_encode(const ip_image *const *images, uint32_t frame_count,
                                 const ip_encode_options *options, const ip_call *call, const ip_byte_sink *sink,
                                 ip_message message) {
    /* An array of pointers, so that ip_image may grow: each image has its own struct_size. */
    const ip_image *frames = images != NULL && frame_count > 0 ? images[0] : NULL;
    template_encoder e;
    qoi_header header;
    qoi_result result;
    size_t bytes_per_pixel;
    (void)options; /* QOI is lossless and has no settings: quality, speed and flags do not apply. */

    if (template_host == NULL || frames == NULL || sink == NULL || sink->write == NULL ||
        !TEMPLATE_HAS_FIELD(frames->struct_size, ip_image, pixels)) {
        template_message(message, "encode called before init, or without an image or a sink");
        return IP_STATUS_INTERNAL;
    }
    if (frame_count != 1) {
        template_message(message, "QOI holds one image; cannot encode %u frames", (unsigned)frame_count);
        return IP_STATUS_UNSUPPORTED;
    }
    if (frames->format != IP_PIXEL_RGBA8 && frames->format != IP_PIXEL_RGBA16) {
        template_message(message, "unknown pixel format %d", (int)frames->format);
        return IP_STATUS_UNSUPPORTED;
    }
    bytes_per_pixel = frames->format == IP_PIXEL_RGBA8 ? 4 : 8;
    if (frames->width == 0 || frames->height == 0 || frames->pixels == NULL ||
        frames->stride < (uint64_t)frames->width * bytes_per_pixel) {
        template_message(message, "invalid image: %ux%u, stride %u", (unsigned)frames->width,
                         (unsigned)frames->height, (unsigned)frames->stride);
        return IP_STATUS_INVALID_DATA;
    }

    header.width = frames->width;
    header.height = frames->height;
    /* An image that declares no alpha is written as RGB: smaller, and it tells readers the truth. */
    header.channels = frames->alpha_mode == IP_ALPHA_NONE ? 3 : 4;
    header.colorspace = 0;

    e.image = frames;
    e.call = call;
    e.sink = sink;
    e.status = IP_STATUS_OK;
    /* One row of scratch: at most 4 * (2^32 - 1) bytes, which fits size_t on the 64-bit targets we build. */
    e.row = malloc((size_t)frames->width * 4);
    if (e.row == NULL) {
        template_message(message, "cannot allocate a row of %u pixels", (unsigned)frames->width);
        return IP_STATUS_NO_MEMORY;
    }
    result = qoi_encode(&header, template_encode_row, &e, template_encode_write, &e, message.buffer,
                        message.capacity);
    free(e.row);
    if (result == QOI_STOPPED) {
        if (e.status == IP_STATUS_CANCELLED) template_message(message, "cancelled");
        else template_message(message, "the output sink refused the data (status %d)", (int)e.status);
        return e.status != IP_STATUS_OK ? e.status : IP_STATUS_INTERNAL;
    }
    return template_status(result);
}

/* ---------------------------------------------------------------------------------------------------------
 * Step 6: static tables. Everything the host needs to ROUTE a request is plain data here, so it can pick a
 * coder (by magic bytes, extension, MIME type or format name) without calling into the plugin at all.
 * All of it is const and lives as long as the process: the host keeps pointers into it.
 * ------------------------------------------------------------------------------------------------------- */
static const uint8_t template_magic[] = {'q', 'o', 'i', 'f'};

static const ip_magic_pattern template_patterns = {
    /* struct_size, offset, length, bytes, mask (NULL = all bits), relevance 1..100, flags, search range (0 = exactly
     * at offset).
     * "qoif" at offset 0 is conclusive, so relevance 100 and no IP_MAGIC_CONFIRM_WITH_SNIFF — which is why
     * the sniff slot below is NULL. A format whose prefix cannot decide (text formats, ISO-BMFF brands) sets
     * that flag and implements sniff(). */
    sizeof(ip_magic_pattern), 0, sizeof template_magic, template_magic, NULL, 100, 0, 0,
};
/* The descriptor takes pointers to patterns (so that ip_magic_pattern may grow). */
static const ip_magic_pattern *const template_pattern_list[] = {&template_patterns};

static const char *const template_mime_types[] = {"image/qoi", NULL};
static const char *const template_extensions[] = {"qoi", NULL};

static const ip_coder_descriptor template_descriptor = {
    sizeof(ip_coder_descriptor),
    "org.imagepipe.coder.qoi/1", /* reverse-DNS ID + revision; a breaking change gets a new revision */
    "QOI (template coder)",
    "1.0.0",
    "qoi",
    template_mime_types,
    template_extensions,
    /* Capabilities promise what the slots below deliver; the host checks them against the slots. */
    IP_CODER_CAN_DECODE | IP_CODER_CAN_ENCODE | IP_CODER_THREAD_SAFE,
    100, /* priority: the default; only breaks ties between coders matching with equal relevance */
    sizeof template_pattern_list / sizeof template_pattern_list[0],
    template_pattern_list,
    QOI_HEADER_SIZE, /* sniff_bytes: how many leading bytes the host should gather before choosing */
    NULL,            /* decode_extensions: none (no tint, no password; the host tints what QOI decodes) */
    NULL,            /* transcodes (ABI 1.1): none; JPEG XL's coder lists "jpeg>jxl" for lossless recompression */
};

/* The coder vtable. A slot left out is NULL, "not implemented"; the capabilities above must agree. Designated
 * initializers, so that the slots a later minor appends (ABI 1.1 added the "2" slots) stay NULL without an edit.
 * Left out here: sniff (no pattern asks for confirmation), frames_* (QOI is never animated), incremental_* (no
 * progressive decoding). This plugin has one coder, so it fills the 1.0 slots and loads under any 1.x host; a
 * plugin with several coders sharing one set of functions fills the "2" slots, which are told their coder. */
static const ip_coder template_coder = {
    .struct_size = sizeof(ip_coder),
    .descriptor = &template_descriptor,
    .probe = template_probe,
    .decode = template_decode,
    .encode = template_encode,
};

static const ip_coder *const template_coders[] = {&template_coder};

static const ip_coder_factory template_coder_factory = {
    sizeof(ip_coder_factory),
    sizeof template_coders / sizeof template_coders[0],
    template_coders,
};

/* ---------------------------------------------------------------------------------------------------------
 * Step 7: the entry table and the exported entry function.
 * ------------------------------------------------------------------------------------------------------- */

static uint32_t template_min(uint32_t a, uint32_t b) {
    return a < b ? a : b;
}

/* Called once by the host before any factory is used [host-thread]. Check the host table is one we can use,
 * remember it, and answer the ABI minor we will speak: the smaller of the host's and ours. From then on we
 * read host structs only as far as that minor (and their struct_size) allows. */
static ip_status template_init(const ip_host *host, const char *plugin_path, uint32_t host_abi_minor,
                               uint32_t *plugin_abi_minor, ip_message message) {
    (void)plugin_path; /* a plugin that keeps data beside its .so would remember it here */
    if (host == NULL || !TEMPLATE_HAS_FIELD(host->struct_size, ip_host, is_cancelled) ||
        host->alloc_pixels == NULL) {
        template_message(message, "the host's service table lacks alloc_pixels or is_cancelled");
        return IP_STATUS_UNSUPPORTED;
    }
    if (host->abi_major != IP_ABI_MAJOR) {
        template_message(message, "host speaks ABI %u, this plugin ABI %d", (unsigned)host->abi_major, IP_ABI_MAJOR);
        return IP_STATUS_UNSUPPORTED;
    }
    template_host = host;
    if (plugin_abi_minor != NULL) *plugin_abi_minor = template_min(host_abi_minor, IP_ABI_MINOR);
    return IP_STATUS_OK;
}

/* Factories are looked up by versioned string ID; return NULL for anything unknown (a newer host may ask
 * for "org.imagepipe.coders/2" one day). Pure: callable before init, from any thread. */
static const void *template_get_factory(const char *factory_id) {
    if (factory_id != NULL && strcmp(factory_id, IP_CODER_FACTORY_ID) == 0) return &template_coder_factory;
    return NULL;
}

static const void *template_get_extension(const char *extension_id) {
    (void)extension_id; /* ABI 1.0 defines no extensions */
    return NULL;
}

static const ip_plugin_entry template_entry = {
    sizeof(ip_plugin_entry),
    IP_ABI_MAJOR, /* the host refuses us unless this equals its major */
    IP_ABI_MINOR, /* the minor these headers are */
    "org.imagepipe.template",
    "TemplateCoder",
    "1.0.0",
    "imagepipe",
    "QOI decoder and encoder in plain C: the template for writing a plugin",
    template_init,
    NULL, /* deinit: nothing to tear down */
    template_get_factory,
    template_get_extension,
};

/* The one exported symbol. Pure: no I/O, no allocation, just a pointer to static data.
 * Everything else in this file is `static`, the build compiles with -fvisibility=hidden, and the linker's
 * version script (Plugins/exports.map) hides whatever a static library might drag in. IP_EXPORT (export.h) is
 * the default-visibility attribute; the declaration in entry.h gives it C linkage for C++ plugins too. */
IP_EXPORT const ip_plugin_entry *imagepipe_plugin_entry(void) {
    return &template_entry;
}
