/* JPEGCodec — the only code of the JPEG plugin that calls libjpeg(-turbo).
 *
 * Rationale: libjpeg reports errors through error_exit, which here longjmps back to a setjmp, and a longjmp must
 * never cross a Swift frame (Swift would skip its cleanups and releases). So every libjpeg call, and the setjmp
 * that catches its errors, lives in these C functions. They return an ip_status and write a message. Callbacks
 * into the host (the byte sink, the cancellation check) always return before an error is raised, so no longjmp
 * passes through their frames either. libjpeg's warnings are never printed (a plugin must not write to the host's
 * stderr): they are classified and turned into statuses (see jpegc_decode).
 *
 * Every function is reentrant: each call creates its own libjpeg structs and uses no global state, so calls may run
 * on several threads at once.
 */
#ifndef JPEG_CODEC_H
#define JPEG_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include <imagepipe/imagepipe.h>

/* The colour space of the stored samples, as libjpeg determines it (JFIF, Adobe APP14, component IDs). */
#define JPEGC_COLOR_UNKNOWN 0
#define JPEGC_COLOR_GRAY 1
#define JPEGC_COLOR_RGB 2
#define JPEGC_COLOR_YCBCR 3
#define JPEGC_COLOR_CMYK 4
#define JPEGC_COLOR_YCCK 5

/* libjpeg's largest width or height (JPEG_MAX_DIMENSION); the format itself allows 65535. */
#define JPEGC_MAX_DIMENSION 65500

/* Largest number of scans a file may have before it is refused (libjpeg-turbo's known CPU exhaustion with files of
 * many tiny progressive scans; TurboJPEG's own limit is 500). Real encoders write at most a few dozen. */
#define JPEGC_DEFAULT_MAX_SCANS 1000

/* Facts from a JPEG header, read without decoding any pixel. */
typedef struct jpegc_info {
    /* Stored (coded) size, before any orientation. */
    uint32_t width;
    uint32_t height;
    /* 1 (gray), 3 (YCbCr/RGB) or 4 (CMYK/YCCK). */
    int32_t components;
    /* One of JPEGC_COLOR_*. */
    int32_t color_space;
    /* Bits per sample: 8, or 12 (valid JPEG that this 8-bit libjpeg-turbo build cannot decode). */
    int32_t precision;
    /* Non-zero when this libjpeg build can decode the file (precision 8). */
    int32_t decodable;
    int32_t progressive;
    int32_t arithmetic;
    /* Non-zero when an Adobe APP14 marker is present: for CMYK/YCCK the samples are stored inverted. */
    int32_t adobe_marker;
    int32_t jfif;
    /* Exif orientation 1..8; 1 when there is no Exif block or its value is out of range. */
    int32_t orientation;
    int32_t has_exif;
    /* Total bytes of the ICC profile carried in APP2 "ICC_PROFILE" chunks; 0 when there is none. */
    uint32_t icc_size;
    /* A lower bound of the file size for this header: Huffman coding spends at least one bit on every 8x8 block
     * (each block's DC difference has a code of at least one bit). 0 when unknown (arithmetic coding, walk-only
     * facts). A shorter input is truncated whatever follows, which lets a decode refuse a small file that claims
     * a huge size before anything is allocated. */
    uint64_t minimum_size;
    /* Chroma subsampling of a 3-component image ("4:2:0", "4:4:4", ...), "" otherwise. */
    char subsampling[12];
} jpegc_info;

/* Returns non-zero once the caller wants the work to stop. Called between rows and scans, never inside libjpeg. */
typedef int32_t (*jpegc_cancel_fn)(void *context);

/* Reads the header of the JPEG in data[0..size) into *info: libjpeg's header parse (markers up to the first scan)
 * plus a bounded walk over the markers for Exif orientation and the ICC profile size. Allocates only libjpeg's small
 * structs. Returns OK (also for a 12-bit file, with decodable 0, and for a size over JPEGC_MAX_DIMENSION, whose
 * facts then come from the marker walk), TRUNCATED when the data ends before the first scan, INVALID_DATA,
 * UNSUPPORTED or NO_MEMORY. [thread-safe] */
ip_status jpegc_probe(const uint8_t *data, size_t size, jpegc_info *info, ip_message message);

/* Where the first Exif block (from its TIFF header, after "Exif\0\0") and XMP packet (after its namespace) of the
 * APP1 segments before the first scan lie in data[0..size); sizes 0 when absent. Bounded walk, never allocates.
 * [thread-safe] */
void jpegc_metadata(const uint8_t *data, size_t size, size_t *exif_offset, size_t *exif_size, size_t *xmp_offset, size_t *xmp_size);

/* Reads only the Exif orientation (1..8; 1 when absent or invalid) from the APP1 markers before the first scan.
 * Bounds-checked, both TIFF byte orders; never allocates. [thread-safe] */
int32_t jpegc_exif_orientation(const uint8_t *data, size_t size);

/* The size libjpeg's DCT scaling gives for scale_num/8 (1..8) of a stored dimension: ceil(dimension * num / 8). */
uint32_t jpegc_scaled_dimension(uint32_t dimension, int32_t scale_num);

/* How to decode. Everything is borrowed for the duration of the call. */
typedef struct jpegc_decode_params {
    const uint8_t *data;
    size_t size;
    /* The header a previous jpegc_probe returned for the same bytes (the buffer was sized from it). */
    const jpegc_info *expected;
    /* DCT scaling: decode at scale_num/8 of the stored size (1..8). */
    int32_t scale_num;
    /* Exif orientation to apply while writing rows (1 = none). */
    int32_t orientation;
    /* RGBA8 rows of the oriented, scaled size (width/height swapped for orientations 5-8). */
    uint8_t *pixels;
    uint32_t out_width;
    uint32_t out_height;
    size_t stride;
    /* libjpeg's own memory ceiling (mem->max_memory_to_use), for coefficient buffers of progressive files. */
    uint64_t max_memory;
    /* More scans than this refuse the file (LIMIT_EXCEEDED); 0 = JPEGC_DEFAULT_MAX_SCANS. */
    uint32_t max_scans;
    jpegc_cancel_fn cancelled;
    void *cancel_context;
    /* For CMYK/YCCK files with a CMYK profile: a transform from jpegc_cmyk_transform_create (sRGB out); NULL for
     * the naive conversion. */
    void *cmyk_transform;
} jpegc_decode_params;

/* Decodes the whole image. Returns OK; TRUNCATED when the data ends before the last row or scan (libjpeg's
 * "premature end of JPEG file"); INVALID_DATA for corrupt data, including the warnings libjpeg would otherwise decode
 * through ("Corrupt JPEG data: ..."; padding bytes before a marker are tolerated); UNSUPPORTED (12-bit, unknown
 * colour transforms); LIMIT_EXCEEDED (memory ceiling, scan count); CANCELLED; NO_MEMORY; INTERNAL.
 * On an error the rows already written are left as they are. [thread-safe] */
ip_status jpegc_decode(const jpegc_decode_params *params, ip_message message);

/* What a preview decode achieved. */
typedef struct jpegc_preview_result {
    /* Non-zero when the data held the whole image (through EOI): the preview is the final image. */
    int32_t complete;
    /* Scans received completely, and iMCU rows received of the scan in progress. */
    int32_t scans_completed;
    int32_t rows_of_current_scan;
} jpegc_preview_result;

/* Decodes the best image the bytes so far allow (incremental loading), in libjpeg's buffered-image mode with a
 * suspending source: every complete scan, plus what has arrived of the scan in progress (blocks not yet received are
 * mid-gray). Returns OK with *result filled, NEED_MORE when there is no preview yet (the header is incomplete; for a
 * progressive file the first scan is incomplete; for a sequential file not one row of blocks has arrived; for an
 * arithmetic-coded file, whose decoder cannot suspend, the file is incomplete), or an error as jpegc_decode (never
 * TRUNCATED). [thread-safe] */
ip_status jpegc_decode_preview(const jpegc_decode_params *params, jpegc_preview_result *result, ip_message message);

/* What to encode and how. Everything is borrowed for the duration of jpegc_encode. */
typedef struct jpegc_encode_params {
    /* Source rows: RGBA, 8 bits per channel, or native-endian 16 bits when input16 is non-zero. */
    const uint8_t *pixels;
    uint32_t width;
    uint32_t height;
    size_t stride;
    int32_t input16;
    /* Non-zero when the colours are premultiplied by alpha: they are divided back first. Alpha is then dropped. */
    int32_t premultiplied;
    /* libjpeg quality 1..100. */
    int32_t quality;
    /* Non-zero for a progressive file (libjpeg's standard progression). */
    int32_t progressive;
    /* Non-zero for 4:4:4 (no chroma subsampling), zero for 4:2:0. */
    int32_t full_chroma;
    /* Non-zero to compute optimal Huffman tables (smaller files, a second pass over the coefficients). */
    int32_t optimize_coding;
    /* An ICC profile to embed in APP2 segments, or NULL. */
    const uint8_t *icc_profile;
    uint32_t icc_size;
    /* A TIFF-structured Exif block (from its byte-order mark) for an APP1 "Exif\0\0" segment, and an XMP packet for
     * an APP1 "http://ns.adobe.com/xap/1.0/" segment, or NULL. Each must fit one segment (JPEGC_MAX_EXIF_BYTES,
     * JPEGC_MAX_XMP_BYTES): a larger one is INVALID_DATA (the caller checks first). */
    const uint8_t *exif;
    uint32_t exif_size;
    const uint8_t *xmp;
    uint32_t xmp_size;
    const ip_byte_sink *sink;
    jpegc_cancel_fn cancelled;
    void *cancel_context;
} jpegc_encode_params;

/* What one APP1 segment holds after its signature: 65533 payload bytes less "Exif\0\0" (6) or the XMP namespace
 * and its NUL (29). */
#define JPEGC_MAX_EXIF_BYTES 65527u
#define JPEGC_MAX_XMP_BYTES 65504u

/* Encodes one image as a JFIF YCbCr JPEG into params->sink. Returns OK, the sink's status (LIMIT_EXCEEDED,
 * NO_MEMORY, IO), CANCELLED, INVALID_DATA (bad parameters), NO_MEMORY or INTERNAL with a message. [thread-safe] */
ip_status jpegc_encode(const jpegc_encode_params *params, ip_message message);

/* The ICC profile of the APP2 "ICC_PROFILE" segments before the first scan, reassembled in sequence order:
 * *profile is malloc'd (free with jpegc_free) or NULL when there is none. INVALID_DATA when segments are missing
 * or repeated (no profile is then used); NO_MEMORY. Reads only data[0..size). [thread-safe] */
ip_status jpegc_icc_profile(const uint8_t *data, size_t size, uint8_t **profile, uint32_t *profile_size);
void jpegc_free(void *pointer);

/* A Little CMS transform from a CMYK ICC profile (inverted: Adobe-style stored samples) to sRGB RGBA, or NULL when
 * the profile is unreadable or not CMYK. Destroy with jpegc_cmyk_transform_destroy (NULL is ignored). The
 * transform may be used by several threads. */
void *jpegc_cmyk_transform_create(const uint8_t *profile, uint32_t profile_size, int32_t inverted);
void jpegc_cmyk_transform_destroy(void *transform);
/* Converts one row of width CMYK pixels to RGBA (alpha 255). */
void jpegc_cmyk_transform_row(void *transform, const uint8_t *cmyk, uint8_t *rgba, uint32_t width);

#endif
