/* libFuzzer target: the JPEG coder's own marker walker, Exif orientation reader and ICC profile reassembly
 * (Plugins/JPEGCoder/Sources/JPEGCodec/jpeg_markers.c), the JPEG code that parses bytes without libjpeg.
 * Any input must give a result without out-of-bounds reads (ASan) or undefined behaviour (UBSan). */
#include <stdint.h>
#include <stdlib.h>
#include "jpeg_codec_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    jpegc_markers markers;
    jpegc_walk_markers(data, size, &markers);
    int32_t orientation = jpegc_exif_orientation(data, size);
    if (orientation < 0 || orientation > 8) abort();
    uint8_t *profile = NULL;
    uint32_t profile_size = 0;
    ip_status status = jpegc_icc_profile(data, size, &profile, &profile_size);
    if (status == IP_STATUS_OK && profile != NULL) {
        /* Every byte of the reassembled profile is readable (ASan checks the last one) and came from the input. */
        if (profile_size == 0 || profile_size > size) abort();
        volatile uint8_t last = profile[profile_size - 1];
        (void)last;
    } else if (profile != NULL || profile_size != 0) {
        abort();
    }
    free(profile);
    return 0;
}
