/* The floor for a HEIC thumbnail: open, decode the primary image to interleaved RGB, nothing else.
 * Usage: heif_floor FILE. Compiled by Benchmarks/run. */
#include <libheif/heif.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    struct heif_context *context = heif_context_alloc();
    struct heif_image_handle *handle = NULL;
    struct heif_image *image = NULL;
    if (heif_context_read_from_file(context, argv[1], NULL).code != heif_error_Ok ||
        heif_context_get_primary_image_handle(context, &handle).code != heif_error_Ok ||
        heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, NULL).code != heif_error_Ok) {
        fprintf(stderr, "decode failed\n");
        return 1;
    }
    printf("%dx%d\n", heif_image_get_width(image, heif_channel_interleaved), heif_image_get_height(image, heif_channel_interleaved));
    heif_image_release(image);
    heif_image_handle_release(handle);
    heif_context_free(context);
    return 0;
}
