import Foundation
import PipelineHost
import Testing
import TestSupport

/// The fast writer's files against an independent PNG implementation (ImageMagick, on libpng and zlib): it reads
/// them bit-exactly, and libpng's own level-6 output is about the same size.
@Suite("PNG fast writer against ImageMagick")
struct PNGFastWriterInteropTests {
    typealias Layout = PNGFastWriterTests.Layout

    /// ImageMagick's decode of `png` as raw RGBA at the PNG's depth (16-bit samples big-endian).
    static func imageMagickRGBA(_ png: [UInt8], bits: Int, convert: String) throws -> [UInt8] {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(png).write(to: URL(fileURLWithPath: folder + "/ours.png"))
        let run = try CommandLine.run(convert, [folder + "/ours.png", "-depth", "\(bits)", "-endian", "MSB", "rgba:\(folder)/out.rgba"])
        guard run.status == 0 else { throw FixtureError.toolFailed("convert: \(run.stderr)") }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/out.rgba")))
    }

    /// What a decoder must return for `pattern`, as packed RGBA (big-endian at 16 bits, opaque alpha added).
    static func expectedRGBA(_ pattern: Pattern, bits: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for y in 0..<pattern.height {
            for x in 0..<pattern.width {
                let p = pattern.expected(x: x, y: y, to: bits == 16 ? 65535 : 255)
                for v in [p.r, p.g, p.b, p.a] { bytes += bits == 16 ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v)] }
            }
        }
        return bytes
    }

    @Test("ImageMagick decodes the files bit-exactly", arguments: Layout.allCases)
    func readByImageMagick(_ layout: Layout) throws {
        guard let convert = ImageMagick.convert else { try Skip.because(ImageMagick.missingMessage, bootstrapProvides: true) }
        // Given an encoded pattern with odd dimensions
        let pattern = PNGFastWriterTests.pattern(layout, width: 257, height: 7)
        let png = try PNGTesting.coders().encode(
            try PNGRoundTripTests.image(pattern, alphaMode: layout.alpha ? .straight : .none), format: "png")

        // When ImageMagick decodes it, then every sample is the pattern's
        let decoded = try Self.imageMagickRGBA(png, bits: layout.bits, convert: convert)
        #expect(decoded == Self.expectedRGBA(pattern, bits: layout.bits))
    }

    @Test("incompressible data is split into 256 KiB IDAT chunks that decode exactly")
    func idatSplitting() throws {
        // Given 400x400 RGBA noise (640,000 bytes that do not compress)
        var generator = SplitMix64(seed: 0x49444154)
        let rgba = (0..<(400 * 400 * 4)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let image = try Image(width: 400, height: 400, pixelFormat: .rgba8, alphaMode: .straight, bytes: rgba)

        // When encoded
        let coders = try PNGTesting.coders()
        let png = try coders.encode(image, format: "png")

        // Then the IDAT chunks are full 256 KiB chunks but the last, and both decoders return the noise exactly
        let idats = try PNGChunks.chunks(of: png).filter { $0.type == "IDAT" }.map(\.data.count)
        #expect(idats.count == 3, "IDAT sizes \(idats)")
        #expect(idats.dropLast().allSatisfy { $0 == 256 * 1024 }, "IDAT sizes \(idats)")
        try PNGFastWriterTests.expectValidChunks(png, width: 400, height: 400, layout: .rgba8)
        #expect(try coders.decode(data: png).bytes == rgba)
        if let convert = ImageMagick.convert {
            #expect(try Self.imageMagickRGBA(png, bits: 8, convert: convert) == rgba)
        }
    }

    /// A photo-like 8-bit RGB image: smooth shading, edges and a little grain (no camera file is committed).
    static func photoLike(width: Int, height: Int) -> Pattern {
        let grain: [Int] = {
            var generator = SplitMix64(seed: 0x50484F54)
            return (0..<(width * height * 3)).map { _ in Int.random(in: -3...3, using: &generator) }
        }()
        return Pattern(width: width, height: height, channels: .rgb, maxValue: 255) { x, y in
            let fx = Double(x) / Double(width), fy = Double(y) / Double(height)
            let sky = 120 + 100 * fy, wave = 40 * sin(fx * 9 + fy * 4) * cos(fy * 7)
            let disc = (fx - 0.6) * (fx - 0.6) + (fy - 0.4) * (fy - 0.4) < 0.04 ? 70.0 : 0
            let base = [sky + wave - disc, 90 + 80 * fx + wave / 2 + disc, 200 - 120 * fy * fx + disc / 2]
            return (0..<3).map { c in min(255, max(0, Int(base[c]) + grain[(y * width + x) * 3 + c])) }
        }
    }

    @Test("a photo-like image is within 3% of libpng's level-6 size (ImageMagick, adaptive filters)")
    func sizeMatchesLibpng() throws {
        guard ImageMagick.convert != nil else { try Skip.because(ImageMagick.missingMessage, bootstrapProvides: true) }
        // Given a photo-like image, written by libpng at zlib level 6 with adaptive filters (quality 65)
        let pattern = Self.photoLike(width: 480, height: 320)
        let reference = try ImageMagick.png(from: pattern, [
            "-strip", "-quality", "65", "-define", "png:color-type=2", "-define", "png:bit-depth=8",
        ])

        // When the same pixels are encoded by the fast writer at the default speed
        let ours = try PNGTesting.coders().encode(try PNGRoundTripTests.image(pattern, alphaMode: .none), format: "png")

        // Then the compressed data (IDAT bytes, so that ancillary chunks do not count) is within 3%
        func idatBytes(_ png: [UInt8]) throws -> Int {
            try PNGChunks.chunks(of: png).filter { $0.type == "IDAT" }.reduce(0) { $0 + $1.data.count }
        }
        let (ourSize, referenceSize) = (try idatBytes(ours), try idatBytes(reference))
        let ratio = Double(ourSize) / Double(referenceSize)
        #expect(abs(ratio - 1) <= 0.03, "ours \(ourSize) bytes, libpng level 6 \(referenceSize) bytes (\(ratio))")
        try PNGTesting.expectDecodes(ours, to: pattern, alphaMode: .none)
    }
}
