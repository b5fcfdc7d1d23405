/* The floor for the service's uncached work: the decode -> resize -> encode of Benchmarks/serve's request mix on
 * as many threads as it is given, with no HTTP, no caches, no plugin boundary and no colour management, only
 * the library calls and the arithmetic any program must do for the same output.
 *
 * Per item (a source file and a fit box S x S, no upscaling), the same choices the service makes:
 *   JPEG  libjpeg-turbo's DCT scaling to the smallest n/8 that still covers the fitted size, then the resize;
 *   PNG   libpng's full decode, then the resize;
 *   WebP  libwebp's own scaling straight to the fitted size (no resize);
 *   resize: k x k box averages (k = floor(reduction / 2)) then a separable Lanczos-3 widened by what is left of
 *   the reduction, as the host's ImageTransformers.Resize;
 *   encode: baseline JPEG, quality Q, 4:2:0, optimised Huffman tables, into memory (then dropped).
 *
 * Usage: serve_floor THREADS QUALITY FILE:SIZE...   Prints "N thumbnails in T s: R thumbnails/s".
 * SERVE_FLOOR_KEEP=DIR writes item i's thumbnail to DIR/i.jpg (to check the floor makes what the service makes).
 * Compiled by Benchmarks/serve (gcc -O2, pkg-config libjpeg libpng libwebp). */
#include <stddef.h>
#include <stdio.h> /* before jpeglib.h, which uses size_t and FILE */
#include <jpeglib.h>
#include <math.h>
#include <png.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <webp/decode.h>

typedef struct { unsigned char *pixels; int width, height; } rgb_image; /* RGB8, tightly packed */
typedef struct { const char *path; int size; } work_item;

static work_item *items;
static int item_count, quality;
static atomic_int next_item, failures;

static int read_file(const char *path, unsigned char **data, size_t *size) {
    FILE *file = fopen(path, "rb");
    if (!file) return -1;
    fseek(file, 0, SEEK_END);
    long length = ftell(file);
    fseek(file, 0, SEEK_SET);
    *data = malloc((size_t)length);
    *size = fread(*data, 1, (size_t)length, file);
    fclose(file);
    return *size == (size_t)length ? 0 : -1;
}

/* The fitted output size of a w x h source in an S x S box, never larger than the source. */
static void fit(int w, int h, int box, int *out_w, int *out_h) {
    double scale = fmin((double)box / w, (double)box / h);
    if (scale > 1) scale = 1;
    *out_w = (int)fmax(1, lround(w * scale));
    *out_h = (int)fmax(1, lround(h * scale));
}

struct error_jump { struct jpeg_error_mgr pub; jmp_buf jump; };
static void error_exit(j_common_ptr info) { longjmp(((struct error_jump *)info->err)->jump, 1); }

static int decode_jpeg(const unsigned char *data, size_t size, int box, rgb_image *image) {
    struct jpeg_decompress_struct cinfo;
    struct error_jump errors;
    cinfo.err = jpeg_std_error(&errors.pub);
    errors.pub.error_exit = error_exit;
    if (setjmp(errors.jump)) { jpeg_destroy_decompress(&cinfo); return -1; }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    int out_w, out_h;
    fit((int)cinfo.image_width, (int)cinfo.image_height, box, &out_w, &out_h);
    cinfo.scale_denom = 8;
    for (int n = 1; n <= 8; n++) {
        cinfo.scale_num = (unsigned)n;
        jpeg_calc_output_dimensions(&cinfo);
        if ((int)cinfo.output_width >= out_w && (int)cinfo.output_height >= out_h) break;
    }
    cinfo.out_color_space = JCS_RGB;
    jpeg_start_decompress(&cinfo);
    image->width = (int)cinfo.output_width;
    image->height = (int)cinfo.output_height;
    image->pixels = malloc((size_t)image->width * image->height * 3);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = image->pixels + (size_t)cinfo.output_scanline * image->width * 3;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

static int decode_png(const unsigned char *data, size_t size, rgb_image *image) {
    png_image png;
    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&png, data, size)) return -1;
    png.format = PNG_FORMAT_RGB;
    image->width = (int)png.width;
    image->height = (int)png.height;
    image->pixels = malloc(PNG_IMAGE_SIZE(png));
    if (!png_image_finish_read(&png, NULL, image->pixels, 0, NULL)) { png_image_free(&png); return -1; }
    return 0;
}

static int decode_webp(const unsigned char *data, size_t size, int box, rgb_image *image) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config) || WebPGetFeatures(data, size, &config.input) != VP8_STATUS_OK) return -1;
    fit(config.input.width, config.input.height, box, &image->width, &image->height);
    config.options.use_scaling = 1;
    config.options.scaled_width = image->width;
    config.options.scaled_height = image->height;
    config.output.colorspace = MODE_RGB;
    config.output.is_external_memory = 1;
    image->pixels = malloc((size_t)image->width * image->height * 3);
    config.output.u.RGBA.rgba = image->pixels;
    config.output.u.RGBA.stride = image->width * 3;
    config.output.u.RGBA.size = (size_t)image->width * image->height * 3;
    return WebPDecode(data, size, &config) == VP8_STATUS_OK ? 0 : -1;
}

/* k x k block means (the last block of a row or column absorbs the remainder). */
static rgb_image box_shrink(const rgb_image *in, int k) {
    rgb_image out = { NULL, in->width / k, in->height / k };
    out.pixels = malloc((size_t)out.width * out.height * 3);
    uint32_t *sums = calloc((size_t)out.width * 3, sizeof *sums);
    for (int oy = 0; oy < out.height; oy++) {
        int y0 = oy * k, y1 = oy == out.height - 1 ? in->height : y0 + k;
        memset(sums, 0, (size_t)out.width * 3 * sizeof *sums);
        for (int y = y0; y < y1; y++) {
            const unsigned char *row = in->pixels + (size_t)y * in->width * 3;
            for (int ox = 0; ox < out.width; ox++) {
                int x0 = ox * k, x1 = ox == out.width - 1 ? in->width : x0 + k;
                for (int x = x0; x < x1; x++) {
                    sums[ox * 3] += row[x * 3];
                    sums[ox * 3 + 1] += row[x * 3 + 1];
                    sums[ox * 3 + 2] += row[x * 3 + 2];
                }
            }
        }
        for (int ox = 0; ox < out.width; ox++) {
            int x0 = ox * k, x1 = ox == out.width - 1 ? in->width : x0 + k;
            uint32_t count = (uint32_t)((x1 - x0) * (y1 - y0));
            for (int c = 0; c < 3; c++) out.pixels[((size_t)oy * out.width + ox) * 3 + c] = (unsigned char)((sums[ox * 3 + c] + count / 2) / count);
        }
    }
    free(sums);
    return out;
}

static double lanczos3(double x) {
    if (x == 0) return 1;
    if (x <= -3 || x >= 3) return 0;
    double px = M_PI * x;
    return 3 * sin(px) * sin(px / 3) / (px * px);
}

/* Taps of a Lanczos-3 reduction from `in` to `out` samples: start[o] and `taps` normalised weights each. */
typedef struct { int *start; float *weights; int taps; } kernel;

static kernel make_kernel(int in, int out) {
    double scale = (double)out / in, support = scale < 1 ? 3 / scale : 3, filter = scale < 1 ? scale : 1;
    kernel k = { malloc(sizeof(int) * out), NULL, (int)ceil(support) * 2 + 1 };
    k.weights = calloc((size_t)out * k.taps, sizeof(float));
    for (int o = 0; o < out; o++) {
        double centre = (o + 0.5) / scale - 0.5;
        int first = (int)floor(centre - support + 1), last = (int)ceil(centre + support - 1);
        if (first < 0) first = 0;
        if (last > in - 1) last = in - 1;
        if (last - first + 1 > k.taps) last = first + k.taps - 1;
        double total = 0;
        for (int i = first; i <= last; i++) total += lanczos3((i - centre) * filter);
        k.start[o] = first;
        for (int i = first; i <= last; i++) k.weights[o * k.taps + (i - first)] = (float)(lanczos3((i - centre) * filter) / total);
    }
    return k;
}

static unsigned char clamp8(float v) { return v <= 0 ? 0 : v >= 255 ? 255 : (unsigned char)(v + 0.5f); }

static rgb_image lanczos_resize(const rgb_image *in, int out_w, int out_h) {
    kernel h = make_kernel(in->width, out_w), v = make_kernel(in->height, out_h);
    float *columns = malloc(sizeof(float) * (size_t)in->height * out_w * 3);
    for (int y = 0; y < in->height; y++) {
        const unsigned char *row = in->pixels + (size_t)y * in->width * 3;
        float *target = columns + (size_t)y * out_w * 3;
        for (int o = 0; o < out_w; o++) {
            float r = 0, g = 0, b = 0;
            const float *w = h.weights + o * h.taps;
            const unsigned char *p = row + h.start[o] * 3;
            int taps = h.taps < in->width - h.start[o] ? h.taps : in->width - h.start[o];
            for (int t = 0; t < taps; t++, p += 3) { r += p[0] * w[t]; g += p[1] * w[t]; b += p[2] * w[t]; }
            target[o * 3] = r; target[o * 3 + 1] = g; target[o * 3 + 2] = b;
        }
    }
    rgb_image out = { malloc((size_t)out_w * out_h * 3), out_w, out_h };
    for (int o = 0; o < out_h; o++) {
        const float *w = v.weights + o * v.taps;
        int taps = v.taps < in->height - v.start[o] ? v.taps : in->height - v.start[o];
        unsigned char *target = out.pixels + (size_t)o * out_w * 3;
        for (int x = 0; x < out_w * 3; x++) {
            float sum = 0;
            const float *p = columns + (size_t)v.start[o] * out_w * 3 + x;
            for (int t = 0; t < taps; t++, p += out_w * 3) sum += *p * w[t];
            target[x] = clamp8(sum);
        }
    }
    free(columns); free(h.start); free(h.weights); free(v.start); free(v.weights);
    return out;
}

static const char *keep_folder; /* SERVE_FLOOR_KEEP: where the thumbnails are written, to compare them */

static size_t encode_jpeg(const rgb_image *image, int index) {
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr errors;
    cinfo.err = jpeg_std_error(&errors);
    jpeg_create_compress(&cinfo);
    unsigned char *buffer = NULL;
    unsigned long size = 0;
    jpeg_mem_dest(&cinfo, &buffer, &size);
    cinfo.image_width = (JDIMENSION)image->width;
    cinfo.image_height = (JDIMENSION)image->height;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    cinfo.optimize_coding = TRUE;
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = image->pixels + (size_t)cinfo.next_scanline * image->width * 3;
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    if (keep_folder) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%d.jpg", keep_folder, index);
        FILE *file = fopen(path, "wb");
        if (file) { fwrite(buffer, 1, size, file); fclose(file); }
    }
    free(buffer);
    return size;
}

static int thumbnail(const work_item *item, int index) {
    unsigned char *data;
    size_t size;
    if (read_file(item->path, &data, &size) != 0) return -1;
    rgb_image decoded = { NULL, 0, 0 };
    const char *dot = strrchr(item->path, '.');
    int status = !dot ? -1
               : strcmp(dot, ".jpg") == 0 ? decode_jpeg(data, size, item->size, &decoded)
               : strcmp(dot, ".png") == 0 ? decode_png(data, size, &decoded)
               : strcmp(dot, ".webp") == 0 ? decode_webp(data, size, item->size, &decoded) : -1;
    free(data);
    if (status != 0) { free(decoded.pixels); return -1; }
    int out_w, out_h;
    fit(decoded.width, decoded.height, item->size, &out_w, &out_h);
    rgb_image result = decoded;
    if (out_w != decoded.width || out_h != decoded.height) {
        int k = (int)floor(fmin((double)decoded.width / out_w, (double)decoded.height / out_h) / 2);
        rgb_image reduced = decoded;
        if (k >= 2) { reduced = box_shrink(&decoded, k); free(decoded.pixels); }
        result = lanczos_resize(&reduced, out_w, out_h);
        free(reduced.pixels);
    }
    size_t encoded = encode_jpeg(&result, index);
    free(result.pixels);
    return encoded > 0 ? 0 : -1;
}

static void *worker(void *unused) {
    (void)unused;
    for (;;) {
        int index = atomic_fetch_add(&next_item, 1);
        if (index >= item_count) return NULL;
        if (thumbnail(&items[index], index) != 0) atomic_fetch_add(&failures, 1);
    }
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: serve_floor THREADS QUALITY FILE:SIZE...\n");
        return 2;
    }
    int threads = atoi(argv[1]);
    keep_folder = getenv("SERVE_FLOOR_KEEP");
    quality = atoi(argv[2]);
    item_count = argc - 3;
    items = calloc((size_t)item_count, sizeof *items);
    for (int i = 0; i < item_count; i++) {
        char *colon = strrchr(argv[i + 3], ':');
        if (!colon) return 2;
        *colon = 0;
        items[i].path = argv[i + 3];
        items[i].size = atoi(colon + 1);
    }
    if (threads < 1) threads = 1;
    pthread_t *pool = calloc((size_t)threads, sizeof *pool);
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int i = 0; i < threads; i++) pthread_create(&pool[i], NULL, worker, NULL);
    for (int i = 0; i < threads; i++) pthread_join(pool[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds = (double)(end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
    printf("%d thumbnails in %.3f s: %.1f thumbnails/s (%d failed)\n", item_count, seconds, item_count / seconds,
           atomic_load(&failures));
    return atomic_load(&failures) ? 1 : 0;
}
