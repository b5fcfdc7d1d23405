import Foundation
import PipelineHost
import Testing
import TestSupport

/// 16-bit integer pages at full precision when the request asks for high bit depth, contiguous and planar, RGB and
/// grey, and planar floating-point pages: each exactly as ImageMagick's own TIFF reader reads the file.
@Suite("TIFF 16-bit and planar pages")
struct TIFFHighBitDepthTests {
    static func coders() throws -> CodersManager { try PluginSandbox.host(loading: ["libTIFFCoder.so"]).coders }

    /// ImageMagick writes each file from one 16-bit plasma with 60 % alpha (or a grey ramp).
    static let variants: [(name: String, arguments: [String])] = [
        ("rgba16", ["-size", "64x48", "-seed", "7", "plasma:fractal", "-alpha", "set", "-channel", "A", "-evaluate", "set", "60%", "+channel",
                    "-depth", "16", "-compress", "lzw"]),
        ("rgba16-planar", ["-size", "64x48", "-seed", "7", "plasma:fractal", "-alpha", "set", "-channel", "A", "-evaluate", "set", "60%",
                           "+channel", "-depth", "16", "-interlace", "plane", "-compress", "zip"]),
        ("grey16", ["-size", "64x48", "gradient:white-black", "-colorspace", "gray", "-depth", "16"]),
        ("rgb16-tiled", ["-size", "70x50", "-seed", "3", "plasma:fractal", "-depth", "16", "-define", "tiff:tile-geometry=32x32"]),
        ("float-planar", ["-size", "64x48", "-seed", "7", "plasma:fractal", "-define", "quantum:format=floating-point", "-depth", "32",
                          "-compress", "none", "-interlace", "plane"]),
    ]

    @Test("each variant equals ImageMagick's 16-bit reading; without high bit depth, integer pages come out 8-bit", arguments: variants.map(\.name))
    func matchesImageMagick(_ name: String) throws {
        let convert = try Skip.unlessTool("convert")
        let folder = try TestPaths.temporaryDirectory("tiff-16")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let arguments = try #require(Self.variants.first { $0.name == name }).arguments
        let path = folder + "/" + name + ".tif"
        let made = try CommandLine.run(convert, arguments + [path])
        // ImageMagick 6.9.11 writes float TIFFs completely but exits 1 after "Unknown tag 317" (it sets a Predictor
        // tag its libtiff refuses for that layout); only that message is tolerated.
        let knownFloatComplaint = name.hasPrefix("float") && made.stderr.contains("Unknown tag 317")
        try #require(made.status == 0 || knownFloatComplaint, "\(made.stderr)")
        let coders = try Self.coders()
        let bytes = try TestFiles.read(path)
        let image = try coders.decode(data: bytes, options: DecodeOptions(highBitDepth: true, colorOutput: .keep))
        #expect(image.pixelFormat == .rgba16, "\(name)")
        let ours = image.bytes.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
        let reference = try MagickRGBA.read(path, depth: 16).samples
        try #require(ours.count == reference.count, "\(name): \(ours.count) samples, ImageMagick \(reference.count)")
        let worst = zip(ours, reference).map { abs(Int($0) - Int($1)) }.max() ?? 0
        // Integers are exact; floats pass through one rounding each side (ImageMagick's quantum and ours).
        #expect(worst <= (name.hasPrefix("float") ? 2 : 0), "\(name): largest difference \(worst)")
        if !name.hasPrefix("float") {
            #expect(try coders.decode(data: bytes).pixelFormat == .rgba8, "\(name): 8-bit unless asked")
        }
    }
}
