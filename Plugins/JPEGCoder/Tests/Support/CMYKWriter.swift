import Foundation
import TestSupport

/// Writes four-component CMYK JPEGs, which no Debian tool makes on demand: ImageMagick always writes YCCK with an
/// Adobe marker and inverted samples, cjpeg reads no CMYK. A small C program on libjpeg (compiled with `cc` at test
/// time) writes plain CMYK either Adobe-style (APP14 marker, samples inverted, as Photoshop does) or without the
/// marker (samples as they are).
enum CMYKWriter {
    static let source = #"""
    #include <stdio.h>
    #include <stdlib.h>
    #include <jpeglib.h>
    /* usage: cmykjpeg width height adobe(0|1) in.cmyk out.jpg */
    int main(int argc, char **argv) {
        if (argc != 6) return 2;
        int width = atoi(argv[1]), height = atoi(argv[2]), adobe = atoi(argv[3]);
        FILE *in = fopen(argv[4], "rb"), *out = fopen(argv[5], "wb");
        if (!in || !out) return 3;
        unsigned char *row = malloc((size_t)width * 4);
        struct jpeg_compress_struct c;
        struct jpeg_error_mgr e;
        c.err = jpeg_std_error(&e);
        jpeg_create_compress(&c);
        jpeg_stdio_dest(&c, out);
        c.image_width = width; c.image_height = height; c.input_components = 4; c.in_color_space = JCS_CMYK;
        jpeg_set_defaults(&c);
        jpeg_set_colorspace(&c, JCS_CMYK);
        c.write_Adobe_marker = adobe ? TRUE : FALSE;
        jpeg_set_quality(&c, 100, TRUE);
        jpeg_start_compress(&c, TRUE);
        while (c.next_scanline < c.image_height) {
            if (fread(row, 4, width, in) != (size_t)width) return 4;
            if (adobe) for (int i = 0; i < width * 4; i++) row[i] = 255 - row[i];
            jpeg_write_scanlines(&c, &row, 1);
        }
        jpeg_finish_compress(&c);
        jpeg_destroy_compress(&c);
        fclose(out);
        return 0;
    }
    """#

    /// The CMYK samples (4 per pixel, not inverted) encoded as a JPEG.
    static func jpeg(width: Int, height: Int, cmyk: [UInt8], adobe: Bool) throws -> [UInt8] {
        try Tools.run(
            "cc -o cmykjpeg cmykjpeg.c -ljpeg && ./cmykjpeg \(width) \(height) \(adobe ? 1 : 0) in.cmyk out.jpg",
            files: ["cmykjpeg.c": Array(source.utf8), "in.cmyk": cmyk], output: "out.jpg")
    }

    /// A smooth CMYK pattern (no edges, so that JPEG error stays small) and its naive RGB conversion
    /// R = (255 - C)(255 - K) / 255, the one the decoder documents.
    static func pattern(width: Int, height: Int) -> (cmyk: [UInt8], rgb: Raster) {
        var cmyk = [UInt8](), rgb = [UInt8]()
        for y in 0..<height {
            for x in 0..<width {
                let c = UInt8(x * 255 / max(1, width - 1)), m = UInt8(y * 255 / max(1, height - 1))
                let yellow = UInt8((x + y) * 127 / max(1, width + height - 2)), k = UInt8(y * 100 / max(1, height - 1))
                cmyk += [c, m, yellow, k]
                let key = 255 - Int(k)
                rgb += [c, m, yellow].map { UInt8(((255 - Int($0)) * key + 127) / 255) }
            }
        }
        return (cmyk, Raster(width: width, height: height, channels: 3, samples: rgb))
    }
}
