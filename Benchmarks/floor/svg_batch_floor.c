/* The floor for a batch of SVG thumbnails: one process per core, each parsing its share of the files once with
 * librsvg and rendering every size with cairo, written by cairo's own PNG writer. Only the library calls any
 * program must make; no isolation, no checks beyond failure. Usage: svg_batch_floor JOBS OUTDIR SIZE[,SIZE..] FILE...
 * Compiled by Benchmarks/batch. */
#include <librsvg/rsvg.h>
#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int render(const char *file, const char *outdir, const int *sizes, int size_count) {
    GError *error = NULL;
    RsvgHandle *handle = rsvg_handle_new_from_file(file, &error);
    if (!handle) { g_error_free(error); return 1; }
    gdouble w = 0, h = 0;
    if (!rsvg_handle_get_intrinsic_size_in_pixels(handle, &w, &h)) { w = 24; h = 24; }
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    for (int i = 0; i < size_count; i++) {
        int box = sizes[i];
        double scale = w > h ? box / w : box / h;
        int ow = (int)(w * scale + 0.5), oh = (int)(h * scale + 0.5);
        cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, ow, oh);
        cairo_t *cr = cairo_create(surface);
        RsvgRectangle viewport = {0, 0, ow, oh};
        rsvg_handle_render_document(handle, cr, &viewport, NULL);
        char path[4096];
        snprintf(path, sizeof path, "%s/%.*s_%d.png", outdir, (int)(strcspn(base, ".")), base, box);
        cairo_surface_write_to_png(surface, path);
        cairo_destroy(cr);
        cairo_surface_destroy(surface);
    }
    g_object_unref(handle);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 5) return 2;
    int jobs = atoi(argv[1]);
    const char *outdir = argv[2];
    int sizes[16], size_count = 0;
    for (char *p = strtok(argv[3], ","); p && size_count < 16; p = strtok(NULL, ",")) sizes[size_count++] = atoi(p);
    int files = argc - 4;
    for (int job = 0; job < jobs; job++) {
        if (fork() == 0) {
            int failures = 0;
            for (int i = job; i < files; i += jobs) failures += render(argv[4 + i], outdir, sizes, size_count);
            _exit(failures ? 1 : 0);
        }
    }
    int status, failed = 0;
    while (wait(&status) > 0) failed |= !WIFEXITED(status) || WEXITSTATUS(status);
    return failed;
}
