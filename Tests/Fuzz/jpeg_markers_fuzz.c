/* libFuzzer target: the JPEG coder's own marker walker and Exif orientation reader
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
    return 0;
}
