/* JPEGCodec: a bounded walk over the markers before the first scan, for what libjpeg does not parse for us
 * (Exif orientation, ICC profile size) and for the SOF precision of files libjpeg refuses (12-bit).
 * It reads only inside data[0..size) and allocates nothing, so it is safe on any input. */
#include "jpeg_codec_internal.h"

#include <stdlib.h>
#include <string.h>

#define TIFF_TAG_ORIENTATION 0x0112
/* The APP1 signature of an XMP packet, with its terminating NUL (XMP part 3, 1.1.3). */
static const char XMP_NAMESPACE[] = "http://ns.adobe.com/xap/1.0/";
#define TIFF_TYPE_SHORT 3
#define TIFF_TYPE_LONG 4

static uint32_t read16(const uint8_t *p, int little) {
    return little ? (uint32_t)p[0] | (uint32_t)p[1] << 8 : (uint32_t)p[0] << 8 | (uint32_t)p[1];
}

static uint32_t read32(const uint8_t *p, int little) {
    return little ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
                  : (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* The orientation tag of IFD0 in a TIFF block of `size` bytes (the Exif payload after "Exif\0\0"); 1 when absent
 * or not 1..8. Every offset is checked against size before it is read. */
static int tiff_orientation(const uint8_t *tiff, size_t size) {
    if (size < 8) return 1;
    int little;
    if (tiff[0] == 'I' && tiff[1] == 'I') {
        little = 1;
    } else if (tiff[0] == 'M' && tiff[1] == 'M') {
        little = 0;
    } else {
        return 1;
    }
    if (read16(tiff + 2, little) != 42) return 1;
    size_t ifd = read32(tiff + 4, little);
    if (ifd < 8 || ifd > size - 2) return 1;
    uint32_t count = read16(tiff + ifd, little);
    for (uint32_t i = 0; i < count; i++) {
        size_t entry = ifd + 2 + (size_t)i * 12;
        if (entry > size || size - entry < 12) break;
        if (read16(tiff + entry, little) != TIFF_TAG_ORIENTATION) continue;
        uint32_t type = read16(tiff + entry + 2, little);
        uint32_t values = read32(tiff + entry + 4, little);
        uint32_t value;
        if (type == TIFF_TYPE_SHORT && values >= 1) {
            value = read16(tiff + entry + 8, little);
        } else if (type == TIFF_TYPE_LONG && values >= 1) {
            value = read32(tiff + entry + 8, little); /* not what the spec says, but seen in the wild */
        } else {
            return 1;
        }
        return value >= 1 && value <= 8 ? (int)value : 1;
    }
    return 1;
}

static int is_sof(int marker) {
    /* SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC). */
    return marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
}

void jpegc_walk_markers(const uint8_t *data, size_t size, jpegc_markers *markers) {
    memset(markers, 0, sizeof *markers);
    markers->orientation = 1;
    if (data == NULL || size < 4 || data[0] != 0xFF || data[1] != 0xD8) return;
    size_t pos = 2;
    while (pos < size) {
        if (data[pos] != 0xFF) return; /* not at a marker: leave the rest to libjpeg */
        while (pos < size && data[pos] == 0xFF) pos++; /* fill bytes */
        if (pos >= size) return;
        int marker = data[pos++];
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) continue; /* no length */
        if (marker == 0xDA || marker == 0xD9 || marker == 0x00) return;    /* first scan, end, or garbage */
        if (size - pos < 2) return;
        size_t length = read16(data + pos, 0);
        if (length < 2) return;
        const uint8_t *segment = data + pos + 2;
        size_t available = size - pos - 2;
        size_t segment_size = length - 2 < available ? length - 2 : available;
        if (is_sof(marker) && !markers->found_sof && segment_size >= 6) {
            markers->found_sof = 1;
            markers->sof_marker = marker;
            markers->precision = segment[0];
            markers->height = read16(segment + 1, 0);
            markers->width = read16(segment + 3, 0);
            markers->components = segment[5];
        } else if (marker == 0xE0 && segment_size >= 5 && memcmp(segment, "JFIF\0", 5) == 0) {
            markers->jfif = 1;
        } else if (marker == 0xE1 && !markers->has_exif && segment_size >= 6 && memcmp(segment, "Exif\0\0", 6) == 0) {
            markers->has_exif = 1;
            markers->orientation = tiff_orientation(segment + 6, segment_size - 6);
            markers->exif_offset = (size_t)(segment + 6 - data);
            markers->exif_size = segment_size - 6;
        } else if (marker == 0xE1 && markers->xmp_size == 0 && segment_size > sizeof XMP_NAMESPACE
                   && memcmp(segment, XMP_NAMESPACE, sizeof XMP_NAMESPACE) == 0) {
            markers->xmp_offset = (size_t)(segment + sizeof XMP_NAMESPACE - data);
            markers->xmp_size = segment_size - sizeof XMP_NAMESPACE;
        } else if (marker == 0xE2 && segment_size >= 14 && memcmp(segment, "ICC_PROFILE\0", 12) == 0) {
            markers->icc_size += (uint32_t)(segment_size - 14);
        } else if (marker == 0xEE && segment_size >= 5 && memcmp(segment, "Adobe", 5) == 0) {
            markers->adobe = 1;
        }
        if (length - 2 > available) return; /* the segment runs past the data */
        pos += length;
    }
}

void jpegc_metadata(const uint8_t *data, size_t size, size_t *exif_offset, size_t *exif_size, size_t *xmp_offset, size_t *xmp_size) {
    jpegc_markers markers;
    jpegc_walk_markers(data, size, &markers);
    *exif_offset = markers.exif_offset;
    *exif_size = markers.exif_size;
    *xmp_offset = markers.xmp_offset;
    *xmp_size = markers.xmp_size;
}

int32_t jpegc_exif_orientation(const uint8_t *data, size_t size) {
    jpegc_markers markers;
    jpegc_walk_markers(data, size, &markers);
    return markers.orientation;
}

/* The ICC profile of APP2 "ICC_PROFILE" segments (ICC.1 annex B.4): each carries its sequence number and the
 * segment count; the profile is their payloads in sequence order. */
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

