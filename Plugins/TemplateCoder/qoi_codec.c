/* QOI decoder and encoder, written from the specification (https://qoiformat.org/qoi-specification.pdf).
 * See qoi_codec.h for the file layout. Nothing here allocates memory or keeps state between calls, so every
 * function is safe to call from several threads at once.
 */
#include "qoi_codec.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The six ops. Two are recognised by their whole first byte, four by its top two bits. */
#define QOI_OP_RGB 0xFE   /* 11111110 r g b       : new colour, alpha unchanged */
#define QOI_OP_RGBA 0xFF  /* 11111111 r g b a     : new colour and alpha */
#define QOI_OP_INDEX 0x00 /* 00iiiiii             : colour from the 64-entry table of recent colours */
#define QOI_OP_DIFF 0x40  /* 01rrggbb             : small differences, each -2..1 (stored + 2) */
#define QOI_OP_LUMA 0x80  /* 10gggggg rrrrbbbb    : green diff -32..31, red and blue relative to it -8..7 */
#define QOI_OP_RUN 0xC0   /* 11llllll             : repeat the previous pixel 1..62 times (stored - 1) */
#define QOI_MASK_2 0xC0

/* Runs stop at 62 because 63 and 64 would collide with the QOI_OP_RGB and QOI_OP_RGBA bytes. */
#define QOI_RUN_MAX 62

static const uint8_t qoi_magic[4] = {'q', 'o', 'i', 'f'};
static const uint8_t qoi_end_marker[QOI_END_MARKER_SIZE] = {0, 0, 0, 0, 0, 0, 0, 1};

typedef struct qoi_rgba {
    uint8_t r, g, b, a;
} qoi_rgba;

/* Where a colour goes in the table of recently seen colours. */
static unsigned qoi_hash(qoi_rgba c) {
    return (c.r * 3u + c.g * 5u + c.b * 7u + c.a * 11u) % 64u;
}

static int qoi_equal(qoi_rgba x, qoi_rgba y) {
    return x.r == y.r && x.g == y.g && x.b == y.b && x.a == y.a;
}

/* The difference a - b wrapped into -128..127, as the specification's 8-bit arithmetic does. Written out
 * because converting an out-of-range int to signed char is implementation-defined in C. */
static int qoi_wrap_diff(uint8_t a, uint8_t b) {
    int d = (a - b) & 0xFF;
    return d > 127 ? d - 256 : d;
}

static uint32_t qoi_read_u32_be(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void qoi_write_u32_be(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static qoi_result qoi_fail(qoi_result result, char *why, size_t why_size, const char *format, ...) {
    if (why != NULL && why_size > 0) {
        va_list args;
        va_start(args, format);
        vsnprintf(why, why_size, format, args);
        va_end(args);
    }
    return result;
}

int qoi_has_magic(const uint8_t *data, size_t size) {
    return data != NULL && size >= sizeof qoi_magic && memcmp(data, qoi_magic, sizeof qoi_magic) == 0;
}

qoi_result qoi_read_header(const uint8_t *data, size_t size, qoi_header *header, char *why, size_t why_size) {
    uint64_t pixels;
    if (data == NULL || size == 0)
        return qoi_fail(QOI_TRUNCATED, why, why_size, "QOI header truncated: the input is empty");
    /* A short input that still matches the magic so far is a truncated QOI file; anything else is not QOI. */
    if (memcmp(data, qoi_magic, size < sizeof qoi_magic ? size : sizeof qoi_magic) != 0)
        return qoi_fail(QOI_INVALID, why, why_size, "not a QOI file (no \"qoif\" magic)");
    if (size < QOI_HEADER_SIZE)
        return qoi_fail(QOI_TRUNCATED, why, why_size, "QOI header truncated: %zu of %d bytes", size,
                        QOI_HEADER_SIZE);
    header->width = qoi_read_u32_be(data + 4);
    header->height = qoi_read_u32_be(data + 8);
    header->channels = data[12];
    header->colorspace = data[13];
    if (header->width == 0 || header->height == 0)
        return qoi_fail(QOI_INVALID, why, why_size, "QOI image has a zero size (%" PRIu32 "x%" PRIu32 ")",
                        header->width, header->height);
    if (header->channels != 3 && header->channels != 4)
        return qoi_fail(QOI_INVALID, why, why_size, "QOI channels must be 3 or 4, not %u", header->channels);
    if (header->colorspace > 1)
        return qoi_fail(QOI_INVALID, why, why_size, "QOI colorspace must be 0 or 1, not %u", header->colorspace);
    /* Both factors are below 2^32, so the product cannot overflow 64 bits. */
    pixels = (uint64_t)header->width * header->height;
    if (pixels > QOI_PIXELS_MAX)
        return qoi_fail(QOI_TOO_LARGE, why, why_size,
                        "QOI image of %" PRIu32 "x%" PRIu32 " exceeds the format's limit of %u pixels",
                        header->width, header->height, QOI_PIXELS_MAX);
    return QOI_OK;
}

qoi_result qoi_decode(const uint8_t *data, size_t size, const qoi_header *header, uint8_t *pixels, size_t stride,
                      qoi_row_callback row_done, void *context, char *why, size_t why_size) {
    const uint64_t total = (uint64_t)header->width * header->height;
    qoi_rgba index[64];
    qoi_rgba px = {0, 0, 0, 255}; /* the "previous pixel" before the first one */
    uint64_t written = 0;
    uint32_t run = 0, x = 0, y = 0;
    size_t p = QOI_HEADER_SIZE;
    uint8_t *row = pixels;

    memset(index, 0, sizeof index);
    while (written < total) {
        if (run > 0) {
            run--; /* still repeating px */
        } else {
            uint8_t b1;
            if (p >= size) goto truncated;
            b1 = data[p++];
            if (b1 == QOI_OP_RGB) {
                if (size - p < 3) goto truncated;
                px.r = data[p];
                px.g = data[p + 1];
                px.b = data[p + 2];
                p += 3;
            } else if (b1 == QOI_OP_RGBA) {
                if (size - p < 4) goto truncated;
                px.r = data[p];
                px.g = data[p + 1];
                px.b = data[p + 2];
                px.a = data[p + 3];
                p += 4;
            } else if ((b1 & QOI_MASK_2) == QOI_OP_INDEX) {
                px = index[b1];
            } else if ((b1 & QOI_MASK_2) == QOI_OP_DIFF) {
                /* uint8_t arithmetic wraps, which is exactly what the specification asks for. */
                px.r = (uint8_t)(px.r + ((b1 >> 4) & 3) - 2);
                px.g = (uint8_t)(px.g + ((b1 >> 2) & 3) - 2);
                px.b = (uint8_t)(px.b + (b1 & 3) - 2);
            } else if ((b1 & QOI_MASK_2) == QOI_OP_LUMA) {
                int vg;
                uint8_t b2;
                if (p >= size) goto truncated;
                b2 = data[p++];
                vg = (b1 & 0x3F) - 32;
                px.r = (uint8_t)(px.r + vg - 8 + ((b2 >> 4) & 0x0F));
                px.g = (uint8_t)(px.g + vg);
                px.b = (uint8_t)(px.b + vg - 8 + (b2 & 0x0F));
            } else { /* QOI_OP_RUN: this pixel plus (b1 & 0x3F) more */
                run = b1 & 0x3F;
                if (run > total - written - 1)
                    return qoi_fail(QOI_INVALID, why, why_size,
                                    "QOI run of %" PRIu32 " pixels passes the end of the image", run + 1);
            }
            /* Every op, the run included, records the current colour, as the reference decoder does. */
            index[qoi_hash(px)] = px;
        }

        row[(size_t)x * 4] = px.r;
        row[(size_t)x * 4 + 1] = px.g;
        row[(size_t)x * 4 + 2] = px.b;
        row[(size_t)x * 4 + 3] = header->channels == 4 ? px.a : 255;
        written++;
        if (++x == header->width) {
            if (row_done != NULL && row_done(context, y) != 0) return QOI_STOPPED;
            x = 0;
            y++;
            row += stride;
        }
    }

    /* All pixels are in; a well-formed file now has its end marker. */
    if (size - p < QOI_END_MARKER_SIZE)
        return qoi_fail(QOI_TRUNCATED, why, why_size, "QOI end marker missing: the file is truncated");
    if (memcmp(data + p, qoi_end_marker, QOI_END_MARKER_SIZE) != 0)
        return qoi_fail(QOI_INVALID, why, why_size, "QOI end marker is wrong: the stream is corrupt");
    return QOI_OK;

truncated:
    return qoi_fail(QOI_TRUNCATED, why, why_size, "QOI data ends after %" PRIu64 " of %" PRIu64 " pixels",
                    written, total);
}

/* The encoder batches its small writes into this buffer so that the host's sink sees few large writes. */
typedef struct qoi_writer {
    uint8_t buffer[16384];
    size_t used;
    qoi_write_function write;
    void *context;
    int failed;
} qoi_writer;

static void qoi_flush(qoi_writer *w) {
    if (w->used > 0 && !w->failed && w->write(w->context, w->buffer, w->used) != 0) w->failed = 1;
    w->used = 0;
}

/* Appends up to 5 bytes (the longest op). */
static void qoi_put(qoi_writer *w, const uint8_t *bytes, size_t count) {
    if (sizeof w->buffer - w->used < count) qoi_flush(w);
    memcpy(w->buffer + w->used, bytes, count);
    w->used += count;
}

static void qoi_put1(qoi_writer *w, uint8_t byte) {
    qoi_put(w, &byte, 1);
}

qoi_result qoi_encode(const qoi_header *header, qoi_row_source rows, void *rows_context, qoi_write_function write,
                      void *write_context, char *why, size_t why_size) {
    qoi_writer w;
    qoi_rgba index[64];
    qoi_rgba prev = {0, 0, 0, 255};
    uint8_t head[QOI_HEADER_SIZE];
    uint32_t run = 0, x, y;
    const uint64_t total = (uint64_t)header->width * header->height;
    uint64_t seen = 0;

    if (header->width == 0 || header->height == 0 || (header->channels != 3 && header->channels != 4) ||
        header->colorspace > 1)
        return qoi_fail(QOI_INVALID, why, why_size, "cannot write a QOI header for %" PRIu32 "x%" PRIu32
                        ", %u channels, colorspace %u", header->width, header->height, header->channels,
                        header->colorspace);
    if (total > QOI_PIXELS_MAX)
        return qoi_fail(QOI_TOO_LARGE, why, why_size, "%" PRIu32 "x%" PRIu32 " exceeds QOI's limit of %u pixels",
                        header->width, header->height, QOI_PIXELS_MAX);

    w.used = 0;
    w.write = write;
    w.context = write_context;
    w.failed = 0;
    memset(index, 0, sizeof index);

    memcpy(head, qoi_magic, 4);
    qoi_write_u32_be(head + 4, header->width);
    qoi_write_u32_be(head + 8, header->height);
    head[12] = header->channels;
    head[13] = header->colorspace;
    qoi_put(&w, head, sizeof head);

    for (y = 0; y < header->height; y++) {
        const uint8_t *row = rows(rows_context, y);
        if (row == NULL) return QOI_STOPPED;
        for (x = 0; x < header->width; x++) {
            qoi_rgba px, last;
            unsigned slot;
            px.r = row[(size_t)x * 4];
            px.g = row[(size_t)x * 4 + 1];
            px.b = row[(size_t)x * 4 + 2];
            px.a = header->channels == 4 ? row[(size_t)x * 4 + 3] : 255;
            seen++;

            if (qoi_equal(px, prev)) {
                /* Extend the run; close it when full or at the last pixel of the image. */
                if (++run == QOI_RUN_MAX || seen == total) {
                    qoi_put1(&w, (uint8_t)(QOI_OP_RUN | (run - 1)));
                    run = 0;
                }
                continue;
            }
            if (run > 0) {
                qoi_put1(&w, (uint8_t)(QOI_OP_RUN | (run - 1)));
                run = 0;
            }
            last = prev; /* the ops below encode px relative to this */
            prev = px;
            slot = qoi_hash(px);
            if (qoi_equal(index[slot], px)) {
                /* Seen recently: one byte naming its slot in the table. */
                qoi_put1(&w, (uint8_t)(QOI_OP_INDEX | slot));
                continue;
            }
            index[slot] = px;
            if (px.a != last.a) {
                /* Only QOI_OP_RGBA can change alpha. */
                uint8_t rgba[5];
                rgba[0] = QOI_OP_RGBA;
                rgba[1] = px.r;
                rgba[2] = px.g;
                rgba[3] = px.b;
                rgba[4] = px.a;
                qoi_put(&w, rgba, 5);
            } else {
                /* Same alpha: the smallest of DIFF (1 byte), LUMA (2 bytes) and RGB (4 bytes) that fits. */
                int vr = qoi_wrap_diff(px.r, last.r);
                int vg = qoi_wrap_diff(px.g, last.g);
                int vb = qoi_wrap_diff(px.b, last.b);
                int vg_r = vr - vg, vg_b = vb - vg;
                if (vr >= -2 && vr <= 1 && vg >= -2 && vg <= 1 && vb >= -2 && vb <= 1) {
                    qoi_put1(&w, (uint8_t)(QOI_OP_DIFF | (vr + 2) << 4 | (vg + 2) << 2 | (vb + 2)));
                } else if (vg >= -32 && vg <= 31 && vg_r >= -8 && vg_r <= 7 && vg_b >= -8 && vg_b <= 7) {
                    uint8_t luma[2];
                    luma[0] = (uint8_t)(QOI_OP_LUMA | (vg + 32));
                    luma[1] = (uint8_t)((vg_r + 8) << 4 | (vg_b + 8));
                    qoi_put(&w, luma, 2);
                } else {
                    uint8_t rgb[4];
                    rgb[0] = QOI_OP_RGB;
                    rgb[1] = px.r;
                    rgb[2] = px.g;
                    rgb[3] = px.b;
                    qoi_put(&w, rgb, 4);
                }
            }
        }
        if (w.failed) return QOI_STOPPED;
    }
    qoi_put(&w, qoi_end_marker, sizeof qoi_end_marker);
    qoi_flush(&w);
    return w.failed ? QOI_STOPPED : QOI_OK;
}
