/* libtiff over a buffer in memory or a file read by ranges, with errors collected per file instead of printed.
 * libtiff's client I/O procedures and its per-file error handlers (libtiff 4.5 TIFFOpenOptions) take C signatures,
 * the handlers a va_list, so they are written here in C; the Swift plugin calls ip_tiff_open and reads `error`. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include <lcms2.h>

/* pread's contract (the host's ip_decode_source.read_at): the count copied, 0 at the end, -1 on an error. */
typedef int64_t (*ip_tiff_read_at_fn)(void *context, uint64_t offset, void *buffer, size_t length);

typedef struct ip_tiff_source {
    const uint8_t *data;
    uint64_t size;
    uint64_t offset;
    /* Non-NULL: the file's `size` bytes are read through read_at (data is not used) and nothing is mapped, so
     * libtiff reads each strip or tile into its own buffer as it decodes it. */
    ip_tiff_read_at_fn read_at;
    void *read_context;
    /* The first error libtiff reported for this file, as "module: message". */
    char error[512];
} ip_tiff_source;

/* Copies up to `count` bytes at *offset of data[0..<size] to buffer and advances *offset: the one read rule of the
 * source and the sink. */
static inline tmsize_t ip_tiff_copy_out(const uint8_t *data, uint64_t size, uint64_t *offset, void *buffer, tmsize_t count) {
    if (count <= 0 || *offset >= size) return 0;
    uint64_t left = size - *offset;
    uint64_t n = (uint64_t)count < left ? (uint64_t)count : left;
    memcpy(buffer, data + *offset, (size_t)n);
    *offset += n;
    return (tmsize_t)n;
}

/* Keeps the first error as "module: message" in buffer (later ones are dropped). */
static inline void ip_tiff_keep_first_error(char *buffer, size_t capacity, const char *module, const char *format, va_list arguments) {
    if (buffer[0]) return;
    int used = module ? snprintf(buffer, capacity, "%s: ", module) : 0;
    if (used < 0) used = 0;
    if ((size_t)used < capacity) vsnprintf(buffer + used, capacity - (size_t)used, format, arguments);
}

static inline tmsize_t ip_tiff_read(thandle_t handle, void *buffer, tmsize_t count) {
    ip_tiff_source *source = (ip_tiff_source *)handle;
    if (source->read_at) {
        if (count <= 0) return 0;
        tmsize_t filled = 0;
        while (filled < count) {
            int64_t got = source->read_at(source->read_context, source->offset, (uint8_t *)buffer + filled, (size_t)(count - filled));
            if (got < 0 || got > count - filled) return -1;
            if (got == 0) break;
            filled += (tmsize_t)got;
            source->offset += (uint64_t)got;
        }
        return filled;
    }
    return ip_tiff_copy_out(source->data, source->size, &source->offset, buffer, count);
}

static inline tmsize_t ip_tiff_write(thandle_t handle, void *buffer, tmsize_t count) {
    (void)handle; (void)buffer; (void)count;
    return 0;
}

static inline toff_t ip_tiff_seek(thandle_t handle, toff_t offset, int whence) {
    ip_tiff_source *source = (ip_tiff_source *)handle;
    uint64_t base = whence == SEEK_CUR ? source->offset : whence == SEEK_END ? source->size : 0;
    if (offset > UINT64_MAX - base) return (toff_t)-1;
    source->offset = base + offset;
    return (toff_t)source->offset;
}

static inline int ip_tiff_close(thandle_t handle) {
    (void)handle;
    return 0;
}

static inline toff_t ip_tiff_size(thandle_t handle) { return (toff_t)((ip_tiff_source *)handle)->size; }

static inline int ip_tiff_map(thandle_t handle, void **base, toff_t *size) {
    ip_tiff_source *source = (ip_tiff_source *)handle;
    if (source->read_at) return 0;
    *base = (void *)source->data;
    *size = (toff_t)source->size;
    return 1;
}

static inline void ip_tiff_unmap(thandle_t handle, void *base, toff_t size) {
    (void)handle; (void)base; (void)size;
}

static inline int ip_tiff_error(TIFF *tiff, void *user, const char *module, const char *format, va_list arguments) {
    (void)tiff;
    ip_tiff_source *source = (ip_tiff_source *)user;
    if (source) ip_tiff_keep_first_error(source->error, sizeof source->error, module, format, arguments);
    return 1; /* handled: libtiff's process-wide handler (stderr) is not called */
}

static inline int ip_tiff_warning(TIFF *tiff, void *user, const char *module, const char *format, va_list arguments) {
    (void)tiff; (void)user; (void)module; (void)format; (void)arguments;
    return 1; /* warnings are dropped, never printed */
}

/* Opens `source` read-only, memory-mapped when it is in memory, with its own error handlers and a cap on any single allocation libtiff
 * makes (strip and tile buffers, tag arrays), so a hostile header cannot make it allocate without bound. */
static inline TIFF *ip_tiff_open(ip_tiff_source *source, tmsize_t max_single_allocation) {
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) return NULL;
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, max_single_allocation);
    TIFFOpenOptionsSetErrorHandlerExtR(options, ip_tiff_error, source);
    TIFFOpenOptionsSetWarningHandlerExtR(options, ip_tiff_warning, source);
    TIFF *tiff = TIFFClientOpenExt("memory", "r", (thandle_t)source, ip_tiff_read, ip_tiff_write, ip_tiff_seek,
                                   ip_tiff_close, ip_tiff_size, ip_tiff_map, ip_tiff_unmap, options);
    TIFFOpenOptionsFree(options);
    return tiff;
}

/* ---- Writing: a growable, seekable buffer (libtiff writes the header last and may seek back) ---- */
typedef struct ip_tiff_sink {
    uint8_t *data;
    uint64_t size;
    uint64_t capacity;
    uint64_t offset;
    /* The file may not grow past this (classic TIFF's 32-bit offsets, or the host's output limit). */
    uint64_t limit;
    int over_limit;
    char error[512];
} ip_tiff_sink;

static inline tmsize_t ip_tiff_sink_read(thandle_t handle, void *buffer, tmsize_t count) {
    ip_tiff_sink *sink = (ip_tiff_sink *)handle;
    return ip_tiff_copy_out(sink->data, sink->size, &sink->offset, buffer, count);
}

static inline tmsize_t ip_tiff_sink_write(thandle_t handle, void *buffer, tmsize_t count) {
    ip_tiff_sink *sink = (ip_tiff_sink *)handle;
    if (count < 0) return -1;
    uint64_t end = sink->offset + (uint64_t)count;
    if (end > sink->limit) {
        sink->over_limit = 1;
        return -1;
    }
    if (end > sink->capacity) {
        uint64_t capacity = sink->capacity ? sink->capacity : 64 * 1024;
        while (capacity < end) capacity *= 2;
        if (capacity > sink->limit) capacity = sink->limit;
        uint8_t *grown = (uint8_t *)realloc(sink->data, (size_t)capacity);
        if (!grown) return -1;
        sink->data = grown;
        sink->capacity = capacity;
    }
    if (sink->offset > sink->size) memset(sink->data + sink->size, 0, (size_t)(sink->offset - sink->size));
    memcpy(sink->data + sink->offset, buffer, (size_t)count);
    sink->offset = end;
    if (end > sink->size) sink->size = end;
    return count;
}

static inline toff_t ip_tiff_sink_seek(thandle_t handle, toff_t offset, int whence) {
    ip_tiff_sink *sink = (ip_tiff_sink *)handle;
    uint64_t base = whence == SEEK_CUR ? sink->offset : whence == SEEK_END ? sink->size : 0;
    if (offset > UINT64_MAX - base || base + offset > sink->limit) return (toff_t)-1;
    sink->offset = base + offset;
    return (toff_t)sink->offset;
}

static inline toff_t ip_tiff_sink_size(thandle_t handle) { return (toff_t)((ip_tiff_sink *)handle)->size; }

static inline int ip_tiff_no_map(thandle_t handle, void **base, toff_t *size) {
    (void)handle; (void)base; (void)size;
    return 0;
}

static inline int ip_tiff_sink_error(TIFF *tiff, void *user, const char *module, const char *format, va_list arguments) {
    (void)tiff;
    ip_tiff_sink *sink = (ip_tiff_sink *)user;
    if (sink) ip_tiff_keep_first_error(sink->error, sizeof sink->error, module, format, arguments);
    return 1;
}

/* Opens a new classic TIFF ("w"; a file over 4 GiB is refused by `limit`) written into `sink`. */
static inline TIFF *ip_tiff_create(ip_tiff_sink *sink) {
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(options, ip_tiff_sink_error, sink);
    TIFFOpenOptionsSetWarningHandlerExtR(options, ip_tiff_warning, sink);
    TIFF *tiff = TIFFClientOpenExt("memory", "wm", (thandle_t)sink, ip_tiff_sink_read, ip_tiff_sink_write, ip_tiff_sink_seek,
                                   ip_tiff_close, ip_tiff_sink_size, ip_tiff_no_map, ip_tiff_unmap, options);
    TIFFOpenOptionsFree(options);
    return tiff;
}

static inline void ip_tiff_sink_free(ip_tiff_sink *sink) {
    free(sink->data);
    sink->data = NULL;
}

/* Tag writes (TIFFSetField is variadic; 16-bit values travel as int, as C's promotions pass them). */
static inline int ip_tiff_set_u16(TIFF *tiff, uint32_t tag, uint16_t value) { return TIFFSetField(tiff, tag, (int)value); }
static inline int ip_tiff_set_u32(TIFF *tiff, uint32_t tag, uint32_t value) { return TIFFSetField(tiff, tag, value); }
static inline int ip_tiff_set_int(TIFF *tiff, uint32_t tag, int value) { return TIFFSetField(tiff, tag, value); }
static inline int ip_tiff_set_icc(TIFF *tiff, uint32_t size, const void *data) { return TIFFSetField(tiff, TIFFTAG_ICCPROFILE, size, data); }
static inline int ip_tiff_set_extra_samples(TIFF *tiff, uint16_t type) { return TIFFSetField(tiff, TIFFTAG_EXTRASAMPLES, 1, &type); }
static inline int ip_tiff_set_page_number(TIFF *tiff, uint16_t page, uint16_t count) {
    return TIFFSetField(tiff, TIFFTAG_PAGENUMBER, (int)page, (int)count);
}

/* libtiff's process-wide handlers print to stderr; with them cleared, nothing does. */
static inline void ip_tiff_silence_process_handlers(void) {
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
}

/* Scalar tag reads (TIFFGetField is variadic). Each returns 1 when the tag is present. */
static inline int ip_tiff_u16(TIFF *tiff, uint32_t tag, uint16_t *value) { return TIFFGetField(tiff, tag, value); }
static inline int ip_tiff_u32(TIFF *tiff, uint32_t tag, uint32_t *value) { return TIFFGetField(tiff, tag, value); }
static inline int ip_tiff_u16_defaulted(TIFF *tiff, uint32_t tag, uint16_t *value) { return TIFFGetFieldDefaulted(tiff, tag, value); }
static inline int ip_tiff_icc(TIFF *tiff, uint32_t *size, const void **data) { return TIFFGetField(tiff, TIFFTAG_ICCPROFILE, size, data); }
/* ASCII tags (Make, Artist ...) and the XMP packet (tag 700), read and written for the metadata policy. */
static inline int ip_tiff_text(TIFF *tiff, uint32_t tag, const char **value) { return TIFFGetField(tiff, tag, value); }
static inline int ip_tiff_set_text(TIFF *tiff, uint32_t tag, const char *value) { return TIFFSetField(tiff, tag, value); }
static inline int ip_tiff_xmp(TIFF *tiff, uint32_t *size, const void **data) { return TIFFGetField(tiff, TIFFTAG_XMLPACKET, size, data); }
static inline int ip_tiff_set_xmp(TIFF *tiff, uint32_t size, const void *data) { return TIFFSetField(tiff, TIFFTAG_XMLPACKET, size, data); }
static inline int ip_tiff_subifds(TIFF *tiff, uint16_t *count, uint64_t **offsets) {
    return TIFFGetField(tiff, TIFFTAG_SUBIFD, count, offsets);
}
static inline int ip_tiff_extra_samples(TIFF *tiff, uint16_t *count, const uint16_t **types) {
    return TIFFGetFieldDefaulted(tiff, TIFFTAG_EXTRASAMPLES, count, types);
}

/* ---- CMYK through the page's own ICC profile (Little CMS), as the JPEG coder converts CMYK JPEGs ----
 * TIFF stores CMYK as ink amounts (0 = none), Little CMS's TYPE_CMYK_8 layout; perceptual intent with black point
 * compensation, into sRGB. With alpha (a fifth, unassociated sample) the alpha is copied through. NULL when the
 * profile is not a CMYK profile Little CMS can read. */
static inline void *ip_tiff_cmyk_transform_create(const void *profile, uint32_t size, int with_alpha) {
    cmsHPROFILE source = cmsOpenProfileFromMem(profile, size);
    if (!source) return NULL;
    if (cmsGetColorSpace(source) != cmsSigCmykData) {
        cmsCloseProfile(source);
        return NULL;
    }
    cmsHPROFILE srgb = cmsCreate_sRGBProfile();
    cmsHTRANSFORM transform = cmsCreateTransform(source, with_alpha ? TYPE_CMYKA_8 : TYPE_CMYK_8, srgb, TYPE_RGBA_8,
                                                 INTENT_PERCEPTUAL,
                                                 cmsFLAGS_BLACKPOINTCOMPENSATION | cmsFLAGS_NOCACHE | (with_alpha ? cmsFLAGS_COPY_ALPHA : 0));
    cmsCloseProfile(srgb);
    cmsCloseProfile(source);
    return transform;
}

static inline void ip_tiff_cmyk_transform_run(void *transform, const void *cmyk, void *rgba, uint32_t pixels) {
    cmsDoTransform((cmsHTRANSFORM)transform, cmyk, rgba, pixels);
}

static inline void ip_tiff_cmyk_transform_destroy(void *transform) {
    if (transform) cmsDeleteTransform((cmsHTRANSFORM)transform);
}
