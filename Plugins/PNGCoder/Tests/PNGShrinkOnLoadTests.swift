import Foundation
import PipelineHost
import Testing
import TestSupport

/// Shrink-on-load: a thumbnail of a non-interlaced PNG is averaged in blocks while its rows are inflated, so the
/// coder returns a reduced image (never the full size), and the finished thumbnail matches the one the host makes
/// from a full decode (PSNR ≥ 40 dB, the streaming-decode target), for opaque, alpha and 16-bit sources.
@Suite("PNG shrink-on-load")
struct PNGShrinkOnLoadTests {
    static func coders() throws -> CodersManager { try PluginSandbox.host(loading: ["libPNGCoder.so"]).coders }

    /// A 1500×1000 plasma written by ImageMagick with `arguments` (alpha ramp, 16 bits, interlacing).
    static func plasma(_ arguments: [String], folder: String, name: String) throws -> [UInt8] {
        let convert = try Skip.unlessTool("convert")
        let path = folder + "/" + name + ".png"
        let made = try CommandLine.run(convert, ["-size", "1500x1000", "-seed", "5", "plasma:fractal"] + arguments + [path])
        try #require(made.status == 0, "\(made.stderr)")
        return try TestFiles.read(path)
    }

    @Test("the coder returns whole-block averages, and the thumbnail equals the full decode's", arguments: [
        ["-depth", "8"],
        ["-depth", "8", "-alpha", "set", "-channel", "A", "-fx", "0.2+0.8*i/w", "+channel"],
        ["-depth", "16"],
    ])
    func reducedMatchesFull(_ arguments: [String]) throws {
        let folder = try TestPaths.temporaryDirectory("png-shrink")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try Self.plasma(arguments, folder: folder, name: "plain")
        let coders = try Self.coders()
        let box = PixelSize(width: 120, height: 120)
        let options = DecodeOptions(thumbnailSize: box, highBitDepth: arguments.contains("16"))
        // 1500 / (2 × 120) → blocks of 6: 250 × 166.
        let raw = try coders.decodeUnfinished(data: bytes, options: options)
        #expect((raw.width, raw.height) == (250, 166))
        let thumbnail = try coders.decode(data: bytes, options: options)
        #expect((thumbnail.width, thumbnail.height) == (120, 80))
        let full = try coders.decodeUnfinished(data: bytes, options: DecodeOptions(highBitDepth: options.highBitDepth))
        #expect((full.width, full.height) == (1500, 1000))
        let fromFull = try ImageTransformers.Resize.resample(full, to: box, mode: .fit)
        let psnr = ImageComparison.psnr(thumbnail, fromFull)
        #expect(psnr >= 40, "PSNR \(psnr) dB between the reduced decode's thumbnail and the full decode's")
    }

    @Test("an interlaced PNG is decoded at full size and gives the same thumbnail")
    func interlacedDecodesFull() throws {
        let folder = try TestPaths.temporaryDirectory("png-shrink")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plain = try Self.plasma(["-depth", "8"], folder: folder, name: "plain")
        let interlaced = try Self.plasma(["-depth", "8", "-interlace", "PNG"], folder: folder, name: "interlaced")
        let coders = try Self.coders()
        let options = DecodeOptions(thumbnailSize: PixelSize(width: 120, height: 120))
        let raw = try coders.decodeUnfinished(data: interlaced, options: options)
        #expect((raw.width, raw.height) == (1500, 1000))
        let psnr = ImageComparison.psnr(try coders.decode(data: plain, options: options), try coders.decode(data: interlaced, options: options))
        #expect(psnr >= 40, "PSNR \(psnr) dB between the thumbnails of the plain and the interlaced file")
    }

    @Test("a size the blocks cannot reach exactly keeps the full decode's output size (aspect-fill, odd sizes)")
    func outputSizeUnchanged() throws {
        let folder = try TestPaths.temporaryDirectory("png-shrink")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try Self.plasma(["-depth", "8", "-crop", "1499x997+0+0", "+repage"], folder: folder, name: "odd")
        let coders = try Self.coders()
        let full = try coders.decodeUnfinished(data: bytes)
        for (box, mode) in [(PixelSize(width: 101, height: 77), ScaleMode.aspectFill), (PixelSize(width: 97, height: 0), .fit),
                            (PixelSize(width: 90, height: 200), .fill)] {
            let options = DecodeOptions(thumbnailSize: box, scaleMode: mode)
            let thumbnail = try coders.decode(data: bytes, options: options)
            let fromFull = try ImageTransformers.Resize.resample(full, to: box, mode: mode)
            try #require((thumbnail.width, thumbnail.height) == (fromFull.width, fromFull.height), "\(box) \(mode)")
            #expect(ImageComparison.psnr(thumbnail, fromFull) >= 40, "\(box) \(mode)")
        }
    }
}
