import Foundation
import PipelineHost
import Testing
import TestSupport

/// Shrink-on-load: a thumbnail of an AVIF without alpha or crop has its YUV planes averaged in blocks before the
/// colour conversion, so the coder returns a reduced image, and the finished thumbnail matches the one the host makes
/// from a full decode (PSNR ≥ 40 dB, the streaming-decode target of issue 29) for 4:4:4, 4:2:2, 4:2:0 (reduced to
/// 4:4:4), 10-bit and monochrome sources, odd sizes and rotated files.
@Suite("AVIF shrink-on-load")
struct AVIFShrinkOnLoadTests {
    /// A plasma of `size` written by ImageMagick, encoded by avifenc with `arguments`.
    static func plasma(_ size: String, _ arguments: [String], extra: [String] = []) throws -> [UInt8] {
        guard ReferenceTools.available else { try Skip.because(ReferenceTools.missingMessage, bootstrapProvides: true) }
        let folder = try TestPaths.temporaryDirectory("avif-shrink")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let png = folder + "/in.png", avif = folder + "/out.avif"
        let made = try CommandLine.run(ReferenceTools.convert, ["-size", size, "-seed", "7", "plasma:fractal", "-blur", "0x1"] + extra + [png])
        try #require(made.status == 0, "\(made.stderr)")
        let encoded = try CommandLine.run(ReferenceTools.avifenc, ["-s", "10", "-j", "1"] + arguments + [png, avif])
        try #require(encoded.status == 0, "\(encoded.stdout) \(encoded.stderr)")
        return try TestFiles.read(avif)
    }

    /// (avifenc arguments, the reduced size a 120 px box gives a 1500x1000 source: blocks of 6, the largest k that
    /// leaves twice the drawn size, even for subsampled chroma.)
    @Test("the coder returns block averages of the planes, and the thumbnail equals the full decode's", arguments: [
        ["-y", "444"], ["-y", "422"], ["-y", "420"], ["-y", "420", "-d", "10"], ["-y", "400"],
    ])
    func reducedMatchesFull(_ arguments: [String]) throws {
        let bytes = try Self.plasma("1500x1000", arguments)
        let coders = try AVIFTest.coders()
        let box = PixelSize(width: 120, height: 120)
        let options = DecodeOptions(thumbnailSize: box, highBitDepth: arguments.contains("10"))
        let raw = try coders.decodeUnfinished(data: bytes, options: options)
        #expect((raw.width, raw.height) == (250, 166), "\(arguments)")
        let thumbnail = try coders.decode(data: bytes, options: options)
        #expect((thumbnail.width, thumbnail.height) == (120, 80))
        let full = try coders.decodeUnfinished(data: bytes, options: DecodeOptions(highBitDepth: options.highBitDepth))
        #expect((full.width, full.height) == (1500, 1000))
        #expect(thumbnail.pixelFormat == full.pixelFormat)
        let fromFull = try ImageTransformers.Resize.resample(full, to: box, mode: .fit)
        let psnr = ImageComparison.psnr(thumbnail, fromFull)
        #expect(psnr >= 40, "\(arguments): PSNR \(psnr) dB between the reduced decode's thumbnail and the full decode's")
    }

    /// Odd sizes whose chroma planes round up, a box that gives an odd k (7, made even for 4:2:0), and aspect-fill:
    /// the output size is the full decode's and so are the pixels.
    @Test("odd sizes, odd block factors and every scale mode keep the full decode's output size and pixels",
          arguments: [["-y", "420"], ["-y", "444"]])
    func oddSizes(_ arguments: [String]) throws {
        let bytes = try Self.plasma("1499x997", arguments)
        let coders = try AVIFTest.coders()
        let full = try coders.decodeUnfinished(data: bytes)
        for (box, mode) in [(PixelSize(width: 101, height: 77), ScaleMode.aspectFill), (PixelSize(width: 97, height: 0), .fit),
                            (PixelSize(width: 90, height: 200), .fill), (PixelSize(width: 107, height: 107), .fit)] {
            let options = DecodeOptions(thumbnailSize: box, scaleMode: mode)
            let raw = try coders.decodeUnfinished(data: bytes, options: options)
            #expect(raw.width < full.width, "\(arguments) \(box) \(mode): not reduced (\(raw.width)x\(raw.height))")
            let thumbnail = try coders.decode(data: bytes, options: options)
            let fromFull = try ImageTransformers.Resize.resample(full, to: box, mode: mode)
            try #require((thumbnail.width, thumbnail.height) == (fromFull.width, fromFull.height), "\(box) \(mode)")
            #expect(ImageComparison.psnr(thumbnail, fromFull) >= 40, "\(arguments) \(box) \(mode)")
        }
    }

    /// irot and imir apply to the reduced image as to the full one: a file turned a quarter and mirrored gives the
    /// full decode's thumbnail, in its displayed orientation.
    @Test("a rotated and mirrored file is reduced in its coded orientation and shown in its displayed one")
    func orientation() throws {
        let bytes = try Self.plasma("1500x1000", ["-y", "420", "--irot", "1", "--imir", "1"])
        let coders = try AVIFTest.coders()
        let options = DecodeOptions(thumbnailSize: PixelSize(width: 120, height: 120))
        let raw = try coders.decodeUnfinished(data: bytes, options: options)
        #expect((raw.width, raw.height) == (166, 250))
        let full = try coders.decodeUnfinished(data: bytes)
        #expect((full.width, full.height) == (1000, 1500))
        let fromFull = try ImageTransformers.Resize.resample(full, to: PixelSize(width: 120, height: 120), mode: .fit)
        let thumbnail = try coders.decode(data: bytes, options: options)
        #expect(ImageComparison.psnr(thumbnail, fromFull) >= 40)
    }

    /// Alpha stays on the full path (the host weights colour by alpha while it averages); so does a decode without
    /// a thumbnail size.
    @Test("an image with alpha, or a decode without a thumbnail size, is converted at full size")
    func fullSizeWhenNotReducible() throws {
        let alpha = try Self.plasma("600x400", ["-y", "444"], extra: ["-alpha", "set", "-channel", "A", "-fx", "0.3+0.7*i/w", "+channel"])
        let coders = try AVIFTest.coders()
        let raw = try coders.decodeUnfinished(data: alpha, options: DecodeOptions(thumbnailSize: PixelSize(width: 60, height: 60)))
        #expect((raw.width, raw.height) == (600, 400))
        let plain = try Self.plasma("600x400", ["-y", "444"])
        #expect((try coders.decodeUnfinished(data: plain).width, try coders.decodeUnfinished(data: plain).height) == (600, 400))
    }
}
