import Foundation
import PipelineHost
import Testing
import TestSupport

/// The project's own encoder: what it writes decodes back to the same pixels, in the layout the options ask for.
@Suite("PNG encode → decode round trips")
struct PNGRoundTripTests {
    /// Packs a pattern (8- or 16-bit RGBA) into an image the encoder accepts.
    static func image(_ pattern: Pattern, alphaMode: AlphaMode) throws -> Image {
        let sixteen = pattern.maxValue > 255
        var bytes: [UInt8] = []
        bytes.reserveCapacity(pattern.width * pattern.height * (sixteen ? 8 : 4))
        for y in 0..<pattern.height {
            for x in 0..<pattern.width {
                for sample in pattern.rgba(x: x, y: y) {
                    if sixteen {
                        withUnsafeBytes(of: UInt16(sample)) { bytes.append(contentsOf: $0) }  // native-endian
                    } else {
                        bytes.append(UInt8(sample))
                    }
                }
            }
        }
        return try Image(width: pattern.width, height: pattern.height, pixelFormat: sixteen ? .rgba16 : .rgba8,
                         alphaMode: alphaMode, bytes: bytes)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var bits: Int
        var alpha: Bool
        var progressive: Bool
        var testDescription: String { "\(bits)-bit \(alpha ? "RGBA" : "RGB")\(progressive ? ", interlaced" : "")" }
    }

    static let cases = [8, 16].flatMap { bits in
        [false, true].flatMap { alpha in [false, true].map { Case(bits: bits, alpha: alpha, progressive: $0) } }
    }

    @Test("round trip", arguments: cases)
    func roundTrip(_ fixture: Case) throws {
        // Given an image of the pattern
        let pattern = Pattern.color(bits: fixture.bits, alpha: fixture.alpha, width: 41, height: 29)
        let source = try Self.image(pattern, alphaMode: fixture.alpha ? .straight : .none)
        let coders = try PNGTesting.coders()

        // When it is encoded as PNG
        let png = try coders.encode(source, format: "png", options: EncodeOptions(progressive: fixture.progressive))

        // Then the file has the source's depth and channels, and decodes to the same pixels
        #expect(Array(png.prefix(8)) == PNGChunks.signature)
        let info = try coders.probe(data: png)
        #expect(info.details == fixture.testDescription)
        #expect(info.bitDepth == fixture.bits)
        #expect(info.hasAlpha == fixture.alpha)
        try PNGTesting.expectDecodes(
            png, to: pattern, highBitDepth: true, format: fixture.bits == 16 ? .rgba16 : .rgba8,
            alphaMode: fixture.alpha ? .straight : .none)
        // and at 8 bits, 16-bit samples round to nearest
        try PNGTesting.expectDecodes(png, to: pattern, alphaMode: fixture.alpha ? .straight : .none)
    }

    @Test("bitDepth 16 widens an RGBA8 image exactly; bitDepth 8 narrows an RGBA16 image to nearest")
    func bitDepthOption() throws {
        let coders = try PNGTesting.coders()
        let narrow = Pattern.color(bits: 8, alpha: true)
        let widened = try coders.encode(try Self.image(narrow, alphaMode: .straight), format: "png",
                                        options: EncodeOptions(bitDepth: 16))
        #expect(try coders.probe(data: widened).details == "16-bit RGBA")
        try PNGTesting.expectDecodes(widened, to: narrow, highBitDepth: true, format: .rgba16, alphaMode: .straight)

        let wide = Pattern.color(bits: 16, alpha: false)
        let narrowed = try coders.encode(try Self.image(wide, alphaMode: .none), format: "png",
                                         options: EncodeOptions(bitDepth: 8))
        #expect(try coders.probe(data: narrowed).details == "8-bit RGB")
        try PNGTesting.expectDecodes(narrowed, to: wide, highBitDepth: true, alphaMode: .none)
    }

    @Test("premultiplied input is written as straight alpha")
    func premultiplied() throws {
        // Given premultiplied pixels of a straight pattern whose colours divide back exactly
        let straight = Pattern(width: 16, height: 4, channels: .rgba, maxValue: 255) { x, y in
            let alpha = [255, 128, 51, 0][y]
            return alpha == 0 ? [0, 0, 0, 0] : [x * 17, 255 - x * 17, 255, alpha]
        }
        var bytes: [UInt8] = []
        for y in 0..<4 {
            for x in 0..<16 {
                let p = straight.rgba(x: x, y: y)
                bytes += p.prefix(3).map { UInt8(($0 * p[3] + 127) / 255) } + [UInt8(p[3])]
            }
        }
        let image = try Image(width: 16, height: 4, pixelFormat: .rgba8, alphaMode: .premultiplied, bytes: bytes)

        // When encoded and decoded
        let coders = try PNGTesting.coders()
        let decoded = try coders.decode(data: try coders.encode(image, format: "png"))

        // Then colours are un-premultiplied (within the rounding premultiplication lost) and alpha is exact
        #expect(decoded.alphaMode == .straight)
        for y in 0..<4 {
            for x in 0..<16 {
                let want = straight.expected(x: x, y: y, to: 255), got = decoded.pixel(x: x, y: y)
                let tolerance = UInt16(255 / max(Int(want.a), 1) + 1)
                #expect(got.a == want.a)
                for (a, b) in [(got.r, want.r), (got.g, want.g), (got.b, want.b)] {
                    #expect((a > b ? a - b : b - a) <= tolerance, "pixel (\(x), \(y)): \(got) vs \(want)")
                }
            }
        }
    }

    @Test("an opaque image (alpha mode none) is written without an alpha channel")
    func opaqueIsRGB() throws {
        let coders = try PNGTesting.coders()
        let png = try coders.encode(try Self.image(.color(bits: 8, alpha: false), alphaMode: .none), format: "png")
        let info = try coders.probe(data: png)
        #expect(info.details == "8-bit RGB")
        #expect(!info.hasAlpha)
        #expect(try coders.decode(data: png).alphaMode == .none)
    }

    @Test("speed changes the compression, never the pixels")
    func speed() throws {
        let coders = try PNGTesting.coders()
        let pattern = Pattern.color(bits: 8, alpha: true, width: 64, height: 64)
        let image = try Self.image(pattern, alphaMode: .straight)
        for speed in [1, 5, 10] {
            let png = try coders.encode(image, format: "png", options: EncodeOptions(speed: speed))
            try PNGTesting.expectDecodes(png, to: pattern, alphaMode: .straight)
        }
    }

    @Test("files the encoder writes are read by ImageMagick too")
    func readableByImageMagick() throws {
        guard let convert = ImageMagick.convert else { try Skip.because(ImageMagick.missingMessage, bootstrapProvides: true) }
        let coders = try PNGTesting.coders()
        let png = try coders.encode(try Self.image(.color(bits: 16, alpha: true), alphaMode: .straight), format: "png",
                                    options: EncodeOptions(progressive: true))
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/ours.png"
        try Data(png).write(to: URL(fileURLWithPath: file))
        let identify = try CommandLine.run(convert, [file, "-format", "%w %h %[channels] %z", "info:"])
        #expect(identify.status == 0, "\(identify.stderr)")
        #expect(identify.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "37 23 srgba 16")
    }
}
