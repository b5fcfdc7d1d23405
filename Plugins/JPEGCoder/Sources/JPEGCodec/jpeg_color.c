/* Colour in JPEG files: Little CMS transforms for CMYK files with a CMYK profile, which the host cannot convert (it
 * receives RGBA). RGB and gray files report their profile (jpegc_icc_profile, in jpeg_markers.c) and the host
 * converts them like every other format. */
#include "jpeg_codec_internal.h"
#include <lcms2.h>
#include <stdlib.h>
#include <string.h>

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
