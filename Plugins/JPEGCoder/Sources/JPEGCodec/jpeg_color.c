/* Colour in JPEG files: the ICC profile of APP2 "ICC_PROFILE" segments (ICC.1 annex B.4), reassembled from the
 * bytes without libjpeg, and Little CMS transforms for CMYK files, which the host cannot convert (it receives
 * RGBA). RGB and gray files report their profile and the host converts them like every other format. */
#include "jpeg_codec_internal.h"
#include <lcms2.h>
#include <stdlib.h>
#include <string.h>

#define JPEGC_ICC_MAX_SEGMENTS 255

ip_status jpegc_icc_profile(const uint8_t *data, size_t size, uint8_t **profile, uint32_t *profile_size) {
    *profile = NULL;
    *profile_size = 0;
    /* Each segment's payload by sequence number (1-based), found in one bounded walk up to the first scan. */
    const uint8_t *parts[JPEGC_ICC_MAX_SEGMENTS + 1] = {0};
    size_t lengths[JPEGC_ICC_MAX_SEGMENTS + 1] = {0};
    int count = 0;
    if (data == NULL || size < 4 || data[0] != 0xFF || data[1] != 0xD8) return IP_STATUS_OK;
    size_t pos = 2;
    while (pos < size) {
        if (data[pos] != 0xFF) break;
        while (pos < size && data[pos] == 0xFF) pos++;
        if (pos >= size) break;
        int marker = data[pos++];
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) continue;
        if (marker == 0xDA || marker == 0xD9 || marker == 0x00) break;
        if (size - pos < 2) break;
        size_t length = ((size_t)data[pos] << 8) | data[pos + 1];
        if (length < 2 || length - 2 > size - pos - 2) break;
        const uint8_t *segment = data + pos + 2;
        size_t segment_size = length - 2;
        if (marker == 0xE2 && segment_size > 14 && memcmp(segment, "ICC_PROFILE\0", 12) == 0) {
            int sequence = segment[12], total = segment[13];
            if (sequence < 1 || sequence > total || parts[sequence] != NULL) return IP_STATUS_INVALID_DATA;
            if (count == 0) count = total;
            if (total != count) return IP_STATUS_INVALID_DATA;
            parts[sequence] = segment + 14;
            lengths[sequence] = segment_size - 14;
        }
        pos += length;
    }
    if (count == 0) return IP_STATUS_OK;
    size_t total_size = 0;
    for (int i = 1; i <= count; i++) {
        if (parts[i] == NULL) return IP_STATUS_INVALID_DATA; /* a segment is missing: no usable profile */
        total_size += lengths[i];
    }
    uint8_t *bytes = malloc(total_size);
    if (bytes == NULL) return IP_STATUS_NO_MEMORY;
    size_t offset = 0;
    for (int i = 1; i <= count; i++) {
        memcpy(bytes + offset, parts[i], lengths[i]);
        offset += lengths[i];
    }
    *profile = bytes;
    *profile_size = (uint32_t)total_size;
    return IP_STATUS_OK;
}

void jpegc_free(void *pointer) { free(pointer); }

void *jpegc_cmyk_transform_create(const uint8_t *profile, uint32_t profile_size, int32_t inverted) {
    cmsHPROFILE source = cmsOpenProfileFromMem(profile, profile_size);
    if (source == NULL) return NULL;
    if (cmsGetColorSpace(source) != cmsSigCmykData) {
        cmsCloseProfile(source);
        return NULL;
    }
    cmsHPROFILE srgb = cmsCreate_sRGBProfile();
    /* Adobe (Photoshop) files store every sample inverted: the _REV layout reads 255 - value. Perceptual intent, as
     * for CMYK → RGB in most tools (the print gamut is smaller; relative colorimetric clips less usefully here);
     * the RGBA output's alpha bytes are left as the caller set them (opaque). */
    cmsHTRANSFORM transform = cmsCreateTransform(source, inverted ? TYPE_CMYK_8_REV : TYPE_CMYK_8, srgb, TYPE_RGBA_8,
                                                 INTENT_PERCEPTUAL, cmsFLAGS_BLACKPOINTCOMPENSATION | cmsFLAGS_NOCACHE);
    cmsCloseProfile(srgb);
    cmsCloseProfile(source);
    return transform;
}

void jpegc_cmyk_transform_destroy(void *transform) {
    if (transform != NULL) cmsDeleteTransform((cmsHTRANSFORM)transform);
}

void jpegc_cmyk_transform_row(void *transform, const uint8_t *cmyk, uint8_t *rgba, uint32_t width) {
    for (uint32_t x = 0; x < width; x++) rgba[x * 4 + 3] = 255;
    cmsDoTransform((cmsHTRANSFORM)transform, cmyk, rgba, width);
}
