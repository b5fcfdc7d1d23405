#include <lcms2.h>

/* lcms2's pixel-format names are macros built from other macros, which Swift does not import: these functions
 * return the ones the host uses. */
static inline cmsUInt32Number ip_lcms_rgba_8(void) { return TYPE_RGBA_8; }
static inline cmsUInt32Number ip_lcms_rgba_16(void) { return TYPE_RGBA_16; }
static inline cmsUInt32Number ip_lcms_rgba_8_premultiplied(void) { return TYPE_RGBA_8_PREMUL; }
static inline cmsUInt32Number ip_lcms_rgba_16_premultiplied(void) { return TYPE_RGBA_16_PREMUL; }
static inline cmsUInt32Number ip_lcms_gray_16(void) { return TYPE_GRAY_16; }
static inline cmsUInt32Number ip_lcms_rgb_16(void) { return TYPE_RGB_16; }
