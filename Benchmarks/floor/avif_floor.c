/* The floor for an AVIF thumbnail: only the library calls any program must make (parse, decode, YUV→RGB).
 * Usage: avif_floor FILE. Compiled by Benchmarks/run. */
#include <avif/avif.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    avifDecoder *decoder = avifDecoderCreate();
    decoder->maxThreads = 2;
    if (avifDecoderSetIOFile(decoder, argv[1]) != AVIF_RESULT_OK || avifDecoderParse(decoder) != AVIF_RESULT_OK ||
        avifDecoderNextImage(decoder) != AVIF_RESULT_OK) {
        fprintf(stderr, "decode failed\n");
        return 1;
    }
    avifRGBImage rgb;
    avifRGBImageSetDefaults(&rgb, decoder->image);
    avifRGBImageAllocatePixels(&rgb);
    if (avifImageYUVToRGB(decoder->image, &rgb) != AVIF_RESULT_OK) return 1;
    printf("%ux%u\n", rgb.width, rgb.height);
    avifRGBImageFreePixels(&rgb);
    avifDecoderDestroy(decoder);
    return 0;
}
