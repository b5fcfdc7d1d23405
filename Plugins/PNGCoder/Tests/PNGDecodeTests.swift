import PipelineHost
import Testing
import TestSupport

/// Every PNG colour type and bit depth, written by ImageMagick from a known pattern, decodes to exactly that pattern.
@Suite("PNG decoding of ImageMagick-made files")
struct PNGDecodeTests {
    /// One fixture: the pattern, how ImageMagick writes it, and what the probe must say about it.
    struct Case: Sendable, CustomTestStringConvertible {
        var pattern: Pattern
        var arguments: [String]
        var details: String
        var hasAlpha: Bool
        var testDescription: String { details }

        static func gray(_ bits: Int, interlaced: Bool = false) -> Case {
            Case(pattern: .gray(bits: bits),
                 arguments: ["-define", "png:color-type=0", "-define", "png:bit-depth=\(bits)"]
                    + (interlaced ? ["-interlace", "PNG"] : []),
                 details: "\(bits)-bit gray" + (interlaced ? ", interlaced" : ""), hasAlpha: false)
        }
    }

    static let cases: [Case] = [1, 2, 4, 8, 16].map { Case.gray($0) } + [1, 2, 4, 8, 16].map { Case.gray($0, interlaced: true) } + [
        Case(pattern: .palette(colours: 3, alpha: false), arguments: ["-type", "Palette"],
             details: "2-bit palette", hasAlpha: false),
        Case(pattern: .palette(colours: 8, alpha: false), arguments: ["-type", "Palette"],
             details: "4-bit palette", hasAlpha: false),
        Case(pattern: .palette(colours: 8, alpha: false), arguments: ["-type", "Palette", "-define", "png:bit-depth=8"],
             details: "8-bit palette", hasAlpha: false),
        Case(pattern: .palette(colours: 8, alpha: true), arguments: ["-type", "PaletteAlpha"],
             details: "4-bit palette, tRNS", hasAlpha: true),
        Case(pattern: .palette(colours: 8, alpha: true), arguments: ["-type", "PaletteAlpha", "-interlace", "PNG"],
             details: "4-bit palette, tRNS, interlaced", hasAlpha: true),
        Case(pattern: .palette(colours: 8, alpha: true), arguments: ["-type", "PaletteAlpha", "-define", "png:bit-depth=8"],
             details: "8-bit palette, tRNS", hasAlpha: true),
        Case(pattern: .grayKeyed(bits: 8), arguments: ["-define", "png:color-type=0"],
             details: "8-bit gray, tRNS", hasAlpha: true),
        Case(pattern: .grayKeyed(bits: 16), arguments: ["-define", "png:color-type=0", "-define", "png:bit-depth=16"],
             details: "16-bit gray, tRNS", hasAlpha: true),
        Case(pattern: .colorKeyed(bits: 8), arguments: ["-define", "png:color-type=2"],
             details: "8-bit RGB, tRNS", hasAlpha: true),
        Case(pattern: .colorKeyed(bits: 8), arguments: ["-define", "png:color-type=2", "-interlace", "PNG"],
             details: "8-bit RGB, tRNS, interlaced", hasAlpha: true),
        Case(pattern: .colorKeyed(bits: 16), arguments: ["-define", "png:color-type=2", "-define", "png:bit-depth=16"],
             details: "16-bit RGB, tRNS", hasAlpha: true),
        Case(pattern: .grayAlpha(bits: 8), arguments: ["-define", "png:color-type=4"],
             details: "8-bit gray+alpha", hasAlpha: true),
        Case(pattern: .grayAlpha(bits: 16), arguments: ["-define", "png:color-type=4", "-define", "png:bit-depth=16"],
             details: "16-bit gray+alpha", hasAlpha: true),
        Case(pattern: .grayAlpha(bits: 16), arguments: ["-define", "png:color-type=4", "-interlace", "PNG"],
             details: "16-bit gray+alpha, interlaced", hasAlpha: true),
        Case(pattern: .color(bits: 8, alpha: false), arguments: ["-define", "png:color-type=2"],
             details: "8-bit RGB", hasAlpha: false),
        Case(pattern: .color(bits: 16, alpha: false), arguments: ["-define", "png:color-type=2", "-define", "png:bit-depth=16"],
             details: "16-bit RGB", hasAlpha: false),
        Case(pattern: .color(bits: 8, alpha: true), arguments: ["-define", "png:color-type=6"],
             details: "8-bit RGBA", hasAlpha: true),
        Case(pattern: .color(bits: 8, alpha: true), arguments: ["-define", "png:color-type=6", "-interlace", "PNG"],
             details: "8-bit RGBA, interlaced", hasAlpha: true),
        Case(pattern: .color(bits: 16, alpha: true), arguments: ["-define", "png:color-type=6", "-define", "png:bit-depth=16"],
             details: "16-bit RGBA", hasAlpha: true),
        Case(pattern: .color(bits: 16, alpha: true),
             arguments: ["-define", "png:color-type=6", "-define", "png:bit-depth=16", "-interlace", "PNG"],
             details: "16-bit RGBA, interlaced", hasAlpha: true),
    ]

    @Test("decodes exactly, at 8 bits and (for 16-bit sources) at 16", arguments: cases)
    func decodes(_ fixture: Case) throws {
        guard ImageMagick.convert != nil else { try Skip.because(ImageMagick.missingMessage, bootstrapProvides: true) }
        // Given a PNG that ImageMagick wrote from the pattern
        let png = try ImageMagick.png(from: fixture.pattern, fixture.arguments)
        let coders = try PNGTesting.coders()

        // When it is probed, then the header facts are reported (and prove the fixture is what the case claims)
        let info = try coders.probe(data: png)
        #expect(info.details == fixture.details)
        #expect(info.format == "png")
        #expect(info.coderID == PNGTesting.coderID)
        #expect((info.width, info.height) == (fixture.pattern.width, fixture.pattern.height))
        #expect(info.hasAlpha == fixture.hasAlpha)

        // When it is decoded, then every pixel equals the pattern: at 8 bits ...
        let alphaMode: AlphaMode = fixture.hasAlpha ? .straight : .none
        try PNGTesting.expectDecodes(png, to: fixture.pattern, alphaMode: alphaMode)
        // ... and with highBitDepth, RGBA16 only for 16-bit sources
        let is16 = fixture.details.hasPrefix("16-bit")
        try PNGTesting.expectDecodes(
            png, to: fixture.pattern, highBitDepth: true, format: is16 ? .rgba16 : .rgba8, alphaMode: alphaMode)
    }

    /// ImageMagick 6 writes wrong tRNS values at 1, 2 and 4 bits, so these take its gray PNG plus a correct tRNS.
    @Test("low-bit gray with a tRNS colour key", arguments: [1, 2, 4])
    func lowBitGrayKey(bits: Int) throws {
        guard ImageMagick.convert != nil else { try Skip.because(ImageMagick.missingMessage, bootstrapProvides: true) }
        let plain = Pattern.gray(bits: bits)
        let key = 1
        let gray = try ImageMagick.png(from: plain, ["-define", "png:color-type=0", "-define", "png:bit-depth=\(bits)"])
        let png = PNGChunks.inserting(PNGChunks.chunk("tRNS", [0, UInt8(key)]), beforeIDATof: gray)
        var keyed = plain
        keyed.channels = .grayAlpha
        keyed.samples = { x, y in
            let v = plain.samples(x, y)[0]
            return [v, v == key ? 0 : plain.maxValue]
        }
        #expect(try PNGTesting.coders().probe(data: png).details == "\(bits)-bit gray, tRNS")
        try PNGTesting.expectDecodes(png, to: keyed, alphaMode: .straight)
    }

    /// A palette whose indices are 1, 2 or 4 bits (ImageMagick writes no 1-bit palettes): gray samples reused as indices.
    @Test("low-bit palette, with and without tRNS", arguments: [(1, false), (1, true), (2, true), (4, false)])
    func lowBitPalette(bits: Int, transparent: Bool) throws {
        guard ImageMagick.convert != nil else { try Skip.because(ImageMagick.missingMessage, bootstrapProvides: true) }
        let indices = Pattern.gray(bits: bits)
        let gray = try ImageMagick.png(from: indices, ["-define", "png:color-type=0", "-define", "png:bit-depth=\(bits)"])
        let entries: [[UInt8]] = (0..<(1 << bits)).map { (i: Int) -> [UInt8] in
            [UInt8(i * 37 % 256), UInt8(255 - i * 11), UInt8(i * 90 % 256)]
        }
        let alphas: [UInt8] = (0..<(1 << bits)).map { (i: Int) -> UInt8 in UInt8(i * 70 % 256) }
        let png = PNGChunks.palette(fromGray: gray, width: indices.width, height: indices.height, bits: UInt8(bits),
                                    palette: entries, alphas: transparent ? alphas : nil)
        let expected = Pattern(width: indices.width, height: indices.height, channels: .rgba, maxValue: 255) { x, y in
            let i = indices.samples(x, y)[0]
            return entries[i].map(Int.init) + [transparent ? Int(alphas[i]) : 255]
        }
        #expect(try PNGTesting.coders().probe(data: png).details == "\(bits)-bit palette" + (transparent ? ", tRNS" : ""))
        try PNGTesting.expectDecodes(png, to: expected, alphaMode: transparent ? .straight : .none)
    }
}

extension Pattern {
    /// Gray at 8 or 16 bits where one level is the tRNS key (fully transparent, colour kept).
    static func grayKeyed(bits: Int) -> Pattern {
        let plain = Pattern.gray(bits: bits)
        let key = plain.samples(3, 2)[0]
        var keyed = plain
        keyed.channels = .rgba
        keyed.samples = { x, y in
            let v = plain.samples(x, y)[0]
            return [v, v, v, v == key ? 0 : plain.maxValue]
        }
        return keyed
    }

    /// RGB at 8 or 16 bits where one colour is the tRNS key.
    static func colorKeyed(bits: Int) -> Pattern {
        let plain = Pattern.color(bits: bits, alpha: false)
        let key = plain.samples(5, 5)
        var keyed = plain
        keyed.channels = .rgba
        keyed.samples = { x, y in
            let c = plain.samples(x, y)
            return c + [c == key ? 0 : plain.maxValue]
        }
        return keyed
    }
}
