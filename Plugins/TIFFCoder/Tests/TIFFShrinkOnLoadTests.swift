import Foundation
import PipelineHost
import Testing
import TestSupport

/// Shrink-on-load without a pyramid: a thumbnail of a striped or tiled page is read strip by strip (or row of tiles
/// by row of tiles) into block averages, so the coder returns a reduced image, never the full page; the finished
/// thumbnail matches the host's from a full decode (PSNR ≥ 40 dB), with alpha and with a turning orientation.
@Suite("TIFF shrink-on-load")
struct TIFFShrinkOnLoadTests {
    static func coders() throws -> CodersManager { try PluginSandbox.host(loading: ["libTIFFCoder.so"]).coders }

    /// A 1500×1000 plasma as a TIFF written by ImageMagick with `arguments`.
    static func tiff(_ arguments: [String], folder: String, name: String) throws -> [UInt8] {
        let convert = try Skip.unlessTool("convert")
        let path = folder + "/" + name + ".tif"
        let made = try CommandLine.run(convert, ["-size", "1500x1000", "-seed", "7", "plasma:fractal", "-depth", "8"] + arguments + [path])
        try #require(made.status == 0, "\(made.stderr)")
        return try TestFiles.read(path)
    }

    @Test("strips, tiles, alpha and orientation 6: whole-block averages, and the full decode's thumbnail", arguments: [
        ["-compress", "lzw", "-define", "tiff:rows-per-strip=16"],
        ["-compress", "zip", "-define", "tiff:tile-geometry=256x256"],
        ["-compress", "lzw", "-alpha", "set", "-channel", "A", "-fx", "0.2+0.8*i/w", "+channel", "-define", "tiff:rows-per-strip=32"],
        ["-compress", "lzw", "-orient", "RightTop", "-define", "tiff:rows-per-strip=16"],
    ])
    func reducedMatchesFull(_ arguments: [String]) throws {
        let folder = try TestPaths.temporaryDirectory("tiff-shrink")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try Self.tiff(arguments, folder: folder, name: "page")
        let coders = try Self.coders()
        let turned = arguments.contains("RightTop")
        let box = PixelSize(width: 120, height: 120)
        let options = DecodeOptions(thumbnailSize: box)
        // 1500 / (2 × 120) → blocks of 6: 250 × 166 (turned: 166 × 250).
        let raw = try coders.decodeUnfinished(data: bytes, options: options)
        #expect((raw.width, raw.height) == (turned ? (166, 250) : (250, 166)))
        let full = try coders.decodeUnfinished(data: bytes)
        #expect((full.width, full.height) == (turned ? (1000, 1500) : (1500, 1000)))
        let thumbnail = try coders.decode(data: bytes, options: options)
        let fromFull = try ImageTransformers.Resize.resample(full, to: box, mode: .fit)
        try #require((thumbnail.width, thumbnail.height) == (fromFull.width, fromFull.height))
        let psnr = ImageComparison.psnr(thumbnail, fromFull)
        #expect(psnr >= 40, "PSNR \(psnr) dB between the reduced decode's thumbnail and the full decode's")
    }

    @Test("a page stored as one strip has nothing to stream: the coder decodes it whole")
    func oneStripDecodesWhole() throws {
        let folder = try TestPaths.temporaryDirectory("tiff-shrink")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try Self.tiff(["-compress", "lzw", "-define", "tiff:rows-per-strip=1000"], folder: folder, name: "one")
        let raw = try Self.coders().decodeUnfinished(data: bytes, options: DecodeOptions(thumbnailSize: PixelSize(width: 120, height: 120)))
        #expect((raw.width, raw.height) == (1500, 1000))
    }
}
