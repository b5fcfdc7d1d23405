/* The libde265-backed HEVC decoder plugin for libheif; see include/hevc_decoder.h for why it exists. */
#include "hevc_decoder.h"

#include <libde265/de265.h>
#include <libheif/heif.h>
#include <libheif/heif_plugin.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Above libheif's own libde265 plugin (100), so libheif asks this one first. */
enum { PRIORITY = 120, MAX_WORKERS = 64 };

/* Per thread: see the header (libheif gives decoders no context, and concurrent requests differ). */
static _Thread_local int worker_threads = 0;
static _Thread_local unsigned long long max_pixels = 0;
static atomic_ullong pictures_decoded = 0;

struct decoder {
    de265_decoder_context *context;
    /* Set when pushing failed: decode_image reports it instead of decoding a partial stream. */
    const char *push_failure;
};

static struct heif_error success(void) {
    return (struct heif_error){heif_error_Ok, heif_suberror_Unspecified, "Success"};
}

static struct heif_error failure(enum heif_suberror_code detail, const char *message) {
    return (struct heif_error){heif_error_Decoder_plugin_error, detail, message};
}

static const char *plugin_name(void) { return "imagepipe libde265 HEVC decoder (worker threads)"; }

static int supports(enum heif_compression_format format) {
    return format == heif_compression_HEVC ? PRIORITY : 0;
}

static struct heif_error new_decoder(void **out) {
    struct decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) {
        return (struct heif_error){heif_error_Memory_allocation_error, heif_suberror_Unspecified,
                                   "no memory for an HEVC decoder"};
    }
    decoder->context = de265_new_decoder();
    if (decoder->context == NULL) {
        free(decoder);
        return (struct heif_error){heif_error_Memory_allocation_error, heif_suberror_Unspecified,
                                   "libde265 could not create a decoder"};
    }
    int workers = worker_threads;
    /* With no worker thread libde265 decodes on the calling thread; a failed start does the same. */
    if (workers > 0) (void)de265_start_worker_threads(decoder->context, workers);
    *out = decoder;
    return success();
}

static void free_decoder(void *raw) {
    struct decoder *decoder = raw;
    if (decoder == NULL) return;
    (void)de265_free_decoder(decoder->context);
    free(decoder);
}

/* libheif asks every version-2 plugin for this; the only thing strictness would change here is whether an odd VUI
 * colour code fails the decode, and those codes are already left at libheif's defaults (see below). */
static void set_strict_decoding(void *raw, int flag) {
    (void)raw;
    (void)flag;
}

/* libheif hands over the hvcC parameter sets and the item's data as NAL units, each behind a 4-byte
 * big-endian length. A length running past the data is corruption, reported when decoding is asked for. */
static struct heif_error push_data(void *raw, const void *data, size_t size) {
    struct decoder *decoder = raw;
    const uint8_t *bytes = data;
    size_t at = 0;
    while (at < size) {
        if (size - at < 4) {
            decoder->push_failure = "HEVC data ends inside a NAL unit length";
            return failure(heif_suberror_End_of_data, decoder->push_failure);
        }
        uint32_t length = (uint32_t)bytes[at] << 24 | (uint32_t)bytes[at + 1] << 16 |
                          (uint32_t)bytes[at + 2] << 8 | (uint32_t)bytes[at + 3];
        at += 4;
        if (length > size - at || length > INT32_MAX) {
            decoder->push_failure = "an HEVC NAL unit runs past the end of the data";
            return failure(heif_suberror_End_of_data, decoder->push_failure);
        }
        if (de265_push_NAL(decoder->context, bytes + at, (int)length, 0, NULL) != DE265_OK) {
            decoder->push_failure = "libde265 could not take an HEVC NAL unit";
            return failure(heif_suberror_Unspecified, decoder->push_failure);
        }
        at += length;
    }
    return success();
}

/* Attaches the bitstream's colour description, as libheif's own plugin does: libheif then prefers the
 * file's `colr` box when there is one, and falls back to this (range and matrix) when there is not. */
static void attach_colour_description(const struct de265_image *picture, struct heif_image *image) {
    struct heif_color_profile_nclx *nclx = heif_nclx_color_profile_alloc();
    if (nclx == NULL) return;
    /* Unknown codes are left at libheif's defaults, so a file with odd VUI values still decodes. */
    (void)heif_nclx_color_profile_set_color_primaries(nclx, (uint16_t)de265_get_image_colour_primaries(picture));
    (void)heif_nclx_color_profile_set_transfer_characteristics(
        nclx, (uint16_t)de265_get_image_transfer_characteristics(picture));
    (void)heif_nclx_color_profile_set_matrix_coefficients(nclx,
                                                          (uint16_t)de265_get_image_matrix_coefficients(picture));
    nclx->full_range_flag = (uint8_t)(de265_get_image_full_range_flag(picture) != 0);
    (void)heif_image_set_nclx_color_profile(image, nclx);
    heif_nclx_color_profile_free(nclx);
}

/* Copies libde265's planes (already cropped to the conformance window) into a new libheif image. */
static struct heif_error convert(const struct de265_image *picture, struct heif_image **out) {
    enum de265_chroma chroma = de265_get_chroma_format(picture);
    int monochrome = chroma == de265_chroma_mono;
    int width = de265_get_image_width(picture, 0), height = de265_get_image_height(picture, 0);
    unsigned long long cap = max_pixels;
    if (width <= 0 || height <= 0) return failure(heif_suberror_Invalid_image_size, "the HEVC picture is empty");
    if (cap > 0 && (unsigned long long)width * (unsigned long long)height > cap) {
        return failure(heif_suberror_Security_limit_exceeded,
                       "the HEVC bitstream's picture is larger than the limit allows");
    }
    /* de265_chroma and heif_chroma share their values for mono, 4:2:0, 4:2:2 and 4:4:4. */
    struct heif_error error = heif_image_create(width, height,
                                                monochrome ? heif_colorspace_monochrome : heif_colorspace_YCbCr,
                                                (enum heif_chroma)chroma, out);
    if (error.code != heif_error_Ok) return error;
    static const enum heif_channel channels[3] = {heif_channel_Y, heif_channel_Cb, heif_channel_Cr};
    int bits = de265_get_bits_per_pixel(picture, 0);
    for (int plane = 0; plane < (monochrome ? 1 : 3); plane++) {
        int plane_width = de265_get_image_width(picture, plane), plane_height = de265_get_image_height(picture, plane);
        int source_stride = 0, target_stride = 0;
        const uint8_t *source = de265_get_image_plane(picture, plane, &source_stride);
        if (de265_get_bits_per_pixel(picture, plane) != bits) {
            heif_image_release(*out);
            *out = NULL;
            /* The category libheif's own plugin uses, so the coder's error mapping sees the same thing. */
            return (struct heif_error){heif_error_Unsupported_feature, heif_suberror_Unsupported_color_conversion,
                                       "HEVC planes with different bit depths are not supported"};
        }
        if (source == NULL || plane_width <= 0 || plane_height <= 0) {
            heif_image_release(*out);
            *out = NULL;
            return failure(heif_suberror_Invalid_image_size, "libde265 returned an empty plane");
        }
        error = heif_image_add_plane(*out, channels[plane], plane_width, plane_height, bits);
        uint8_t *target = error.code == heif_error_Ok ? heif_image_get_plane(*out, channels[plane], &target_stride) : NULL;
        if (target == NULL) {
            heif_image_release(*out);
            *out = NULL;
            return error.code != heif_error_Ok ? error
                                               : failure(heif_suberror_Unspecified, "libheif returned no plane");
        }
        size_t row_bytes = (size_t)plane_width * (size_t)((bits + 7) / 8);
        for (int y = 0; y < plane_height; y++) {
            memcpy(target + (size_t)y * (size_t)target_stride, source + (size_t)y * (size_t)source_stride, row_bytes);
        }
    }
    attach_colour_description(picture, *out);
    return success();
}

/* Decodes everything pushed and returns the first picture: a HEIF image item is one coded picture. */
static struct heif_error decode_image(void *raw, struct heif_image **out) {
    struct decoder *decoder = raw;
    *out = NULL;
    if (decoder->push_failure != NULL) return failure(heif_suberror_End_of_data, decoder->push_failure);
    if (de265_flush_data(decoder->context) != DE265_OK) {
        return failure(heif_suberror_Unspecified, "libde265 could not flush its input");
    }
    int more = 1;
    while (more) {
        more = 0;
        if (de265_decode(decoder->context, &more) != DE265_OK) break;
        const struct de265_image *picture = de265_get_next_picture(decoder->context);
        if (picture == NULL) continue;
        struct heif_error error = convert(picture, out);
        de265_release_next_picture(decoder->context);
        if (error.code == heif_error_Ok) atomic_fetch_add(&pictures_decoded, 1);
        return error;
    }
    return failure(heif_suberror_Unspecified, "the HEVC data decoded to no picture");
}

static const struct heif_decoder_plugin plugin = {
    .plugin_api_version = 2,
    .get_plugin_name = plugin_name,
    .init_plugin = NULL,
    .deinit_plugin = NULL,
    .does_support_format = supports,
    .new_decoder = new_decoder,
    .free_decoder = free_decoder,
    .push_data = push_data,
    .decode_image = decode_image,
    .set_strict_decoding = set_strict_decoding,
};

static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static int installed = 0;

static void install(void) { installed = heif_register_decoder_plugin(&plugin).code == heif_error_Ok; }

int ip_hevc_decoder_install(void) {
    pthread_once(&install_once, install);
    return installed;
}

void ip_hevc_decoder_set_worker_threads(int count) {
    worker_threads = count < 0 ? 0 : count > MAX_WORKERS ? MAX_WORKERS : count;
}

void ip_hevc_decoder_set_max_pixels(unsigned long long pixels) { max_pixels = pixels; }

unsigned long long ip_hevc_decoder_pictures_decoded(void) { return atomic_load(&pictures_decoded); }
