import Foundation
import PipelineHost
import TestSupport
import Testing

/// clap, irot and imir, which libavif 0.11 reports but does not apply (the plugin does: crop, then rotate, then
/// mirror). Exact checks use lossless files made by avifenc with each property set, against ImageMagick applying
/// the same operations to the source PNG: irot N (anticlockwise quarter turns) = `-rotate -90*N`, imir 0 (top and
/// bottom exchanged) = `-flip`, imir 1 (left and right exchanged) = `-flop`, clap = `-crop`.
@Suite struct AVIFTransformTests {
    struct Case: CustomStringConvertible {
        let avifenc: [String]
        let magick: [String]
        var description: String { avifenc.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(avifenc: ["--irot", "1"], magick: ["-rotate", "-90"]),
        Case(avifenc: ["--irot", "2"], magick: ["-rotate", "180"]),
        Case(avifenc: ["--irot", "3"], magick: ["-rotate", "90"]),
        Case(avifenc: ["--imir", "0"], magick: ["-flip"]),
        Case(avifenc: ["--imir", "1"], magick: ["-flop"]),
        Case(avifenc: ["--irot", "1", "--imir", "0"], magick: ["-rotate", "-90", "-flip"]),
        Case(avifenc: ["--irot", "3", "--imir", "1"], magick: ["-rotate", "90", "-flop"]),
        Case(avifenc: ["--crop", "5,3,24,14"], magick: ["-crop", "24x14+5+3", "+repage"]),
        Case(avifenc: ["--crop", "6,2,20,17", "--irot", "1", "--imir", "1"],
             magick: ["-crop", "20x17+6+2", "+repage", "-rotate", "-90", "-flop"]),
        Case(avifenc: ["--crop", "1,1,30,19", "--irot", "2", "--imir", "0"],
             magick: ["-crop", "30x19+1+1", "+repage", "-rotate", "180", "-flip"]),
    ]

    @Test(arguments: cases) func losslessTransformMatchesImageMagick(_ testCase: Case) throws {
        guard ReferenceTools.available else { try Skip.because(ReferenceTools.missingMessage, bootstrapProvides: true) }
        let folder = try TestPaths.temporaryDirectory("avif-transform")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = Raster.pattern(width: 37, height: 23, alpha: true, seed: 7)
        let png = try ReferenceTools.writePNG(source, in: folder)
        let bytes = try ReferenceTools.encode(source, ["-l"] + testCase.avifenc)
        let expected = try ReferenceTools.rasterFromImage(png, depth: 8, operations: testCase.magick)

        let info = try AVIFTest.probe(bytes)
        #expect((info.width, info.height) == (expected.width, expected.height), "\(testCase): probe")
        let image = try AVIFTest.decode(bytes)
        let difference = Difference(Raster(image), expected)
        #expect(difference.maxChannel == 0, "\(testCase): \(difference)")
        // Thumbnails are made from the transformed image: its aspect ratio survives.
        let thumb = try AVIFTest.decode(bytes, DecodeOptions(thumbnailSize: PixelSize(width: 12, height: 12)))
        #expect(max(thumb.width, thumb.height) == 12 && (thumb.width > thumb.height) == (image.width > image.height))

        // Ignoring orientation keeps the crop but not the turn or mirror.
        let plain = try AVIFTest.decode(bytes, DecodeOptions(ignoreOrientation: true))
        let cropOnly = testCase.magick.firstIndex(of: "+repage").map { Array(testCase.magick[...$0]) } ?? []
        let unturned = try ReferenceTools.rasterFromImage(png, depth: 8, operations: cropOnly)
        #expect(Difference(Raster(plain), unturned).maxChannel == 0, "\(testCase): ignoreOrientation")
    }

    /// The kimono files carry one coded picture each, transformed so that the displayed image is kimono.avif again.
    /// They are lossy encodes of differently oriented pictures, so the check is a PSNR, not equality.
    @Test(arguments: ["kimono.rotate90.avif", "kimono.mirror-horizontal.avif", "kimono.mirror-vertical.rotate270.avif"])
    func kimonoTransformsShowTheSamePicture(_ file: String) throws {
        guard let upright = try AVIFTest.corpusFile("avif/kimono.avif"), let bytes = try AVIFTest.corpusFile("avif/" + file)
        else { return }
        let reference = Raster(try AVIFTest.decode(upright))
        let image = try AVIFTest.decode(bytes)
        #expect((image.width, image.height) == (722, 1024))
        let psnr = Difference(Raster(image), reference).psnr(maxValue: 255)
        #expect(psnr >= 30, "\(file): PSNR \(psnr) dB against kimono.avif")
        // Not transformed, the same file is clearly a different picture: the check above has teeth.
        let plain = try AVIFTest.decode(bytes, DecodeOptions(ignoreOrientation: true))
        if (plain.width, plain.height) == (722, 1024) {
            #expect(Difference(Raster(plain), reference).psnr(maxValue: 255) < 20, "\(file) without its transform")
        }
        print("kimono \(file): PSNR \(String(format: "%.1f", psnr)) dB against kimono.avif")
    }

    /// kimono.crop.avif holds kimono.avif's coded picture plus a clap at an odd offset (272, 39) in 4:2:0, which strict
    /// libavif refuses. The plugin converts the whole frame and crops: exactly kimono.avif's pixels in that rectangle.
    @Test(.requiresCorpus) func oddOffsetCleanApertureIsExactCropOfTheUncroppedFile() throws {
        guard let upright = try AVIFTest.corpusFile("avif/kimono.avif"),
              let cropped = try AVIFTest.corpusFile("avif/kimono.crop.avif") else { return }
        let info = try AVIFTest.probe(cropped)
        #expect((info.width, info.height) == (385, 330))
        #expect(info.details.contains("clap 385x330+272+39"), "\(info.details)")
        let image = try AVIFTest.decode(cropped)
        let expected = Raster(try AVIFTest.decode(upright)).cropped(x: 272, y: 39, width: 385, height: 330)
        #expect(Difference(Raster(image), expected).maxChannel == 0)
    }

    /// clap 8x10 at (4, 6) of a 12x34 image, then irot 1 and imir 1: 10x8, as the manifest says.
    @Test(.requiresCorpus) func clapIrotImirInThatOrder() throws {
        guard let bytes = try AVIFTest.corpusFile("avif/clap_irot_imir_non_essential.avif") else { return }
        let info = try AVIFTest.probe(bytes)
        #expect((info.width, info.height) == (10, 8))
        #expect(info.details.contains("clap 8x10+4+6") && info.details.contains("irot 1") && info.details.contains("imir 1"),
                "\(info.details)")
        let plain = Raster(try AVIFTest.decode(bytes, DecodeOptions(ignoreOrientation: true)))  // 8x10 crop
        let image = Raster(try AVIFTest.decode(bytes))
        #expect((plain.width, plain.height, image.width, image.height) == (8, 10, 10, 8))
        // Anticlockwise turn: crop pixel (x, y) goes to (y, 7 - x); then left-right mirror: (9 - y, 7 - x).
        for y in 0..<10 {
            for x in 0..<8 { #expect(image.pixel(9 - y, 7 - x) == plain.pixel(x, y), "crop pixel (\(x), \(y))") }
        }
    }
}
