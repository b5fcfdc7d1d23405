import Foundation
import PipelineHost
import Testing
import TestSupport

/// The non-interlaced writer (own chunk layout, adaptive filters, libdeflate): exact pixels at every size that
/// exercises a filter edge, a valid chunk sequence, output other decoders read, and libpng-like sizes.
@Suite("PNG fast writer (libdeflate)")
struct PNGFastWriterTests {
    /// Sample layouts the encoder writes.
    enum Layout: String, CaseIterable, Sendable {
        case rgba8 = "8-bit RGBA", rgb8 = "8-bit RGB", rgba16 = "16-bit RGBA", rgb16 = "16-bit RGB"
        var bits: Int { self == .rgba8 || self == .rgb8 ? 8 : 16 }
        var alpha: Bool { self == .rgba8 || self == .rgba16 }
        var colorType: UInt8 { alpha ? 6 : 2 }
        var bytesPerPixel: Int { (alpha ? 4 : 3) * bits / 8 }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var layout: Layout
        var width: Int
        var height: Int
        var testDescription: String { "\(layout.rawValue) \(width)x\(height)" }
    }

    /// Widths 1 (only a first pixel), 3 and 257 (odd, more than one block of the filter's sums), heights 1 (only a
    /// first row) and 7: every filter's first-row and first-pixel paths.
    static let cases = Layout.allCases.flatMap { layout in
        [(1, 1), (1, 7), (3, 1), (3, 7), (257, 1), (257, 7)].map { Case(layout: layout, width: $0.0, height: $0.1) }
    }

    static func pattern(_ layout: Layout, width: Int, height: Int) -> Pattern {
        .color(bits: layout.bits, alpha: layout.alpha, width: width, height: height)
    }

    /// Requires `png` to be signature, IHDR (with these fields), one or more consecutive IDAT, IEND, all CRCs right.
    static func expectValidChunks(_ png: [UInt8], width: Int, height: Int, layout: Layout,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        let chunks = try PNGChunks.chunks(of: png)
        let badCRCs = chunks.filter { !$0.crcMatches }.map(\.type)
        #expect(badCRCs.isEmpty, "chunks with a wrong CRC: \(badCRCs)", sourceLocation: sourceLocation)
        #expect(chunks.map(\.type).first == "IHDR", sourceLocation: sourceLocation)
        #expect(chunks.last == PNGChunks.Chunk(type: "IEND", data: [], crcMatches: true), sourceLocation: sourceLocation)
        let middle = chunks.dropFirst().dropLast().map(\.type)
        #expect(!middle.isEmpty && middle.allSatisfy { $0 == "IDAT" }, "chunks: \(chunks.map(\.type))",
                sourceLocation: sourceLocation)
        let header = PNGChunks.bigEndian(UInt32(width)) + PNGChunks.bigEndian(UInt32(height)) + [UInt8(layout.bits), layout.colorType, 0, 0, 0]
        #expect(chunks.first?.data == header, sourceLocation: sourceLocation)
    }

    @Test("round trip is exact, and the chunks are valid", arguments: cases)
    func roundTrip(_ fixture: Case) throws {
        // Given an image of the pattern at an edge-case size
        let pattern = Self.pattern(fixture.layout, width: fixture.width, height: fixture.height)
        let source = try PNGRoundTripTests.image(pattern, alphaMode: fixture.layout.alpha ? .straight : .none)

        // When it is encoded (non-interlaced: the fast writer)
        let png = try PNGTesting.coders().encode(source, format: "png")

        // Then the chunk sequence is valid and every sample comes back exactly
        try Self.expectValidChunks(png, width: fixture.width, height: fixture.height, layout: fixture.layout)
        try PNGTesting.expectDecodes(png, to: pattern, highBitDepth: true, format: fixture.layout.bits == 16 ? .rgba16 : .rgba8,
                                     alphaMode: fixture.layout.alpha ? .straight : .none)
    }

    /// Inputs whose samples the writer must transform, as the libpng (interlaced) path does.
    struct Conversion: Sendable, CustomTestStringConvertible {
        var bits: Int
        var alphaMode: AlphaMode
        var outputBits: Int?
        var testDescription: String { "\(bits)-bit \(alphaMode) → \(outputBits.map { "\($0)-bit" } ?? "same depth")" }
    }

    static let conversions = [
        Conversion(bits: 8, alphaMode: .premultiplied), Conversion(bits: 16, alphaMode: .premultiplied),
        Conversion(bits: 8, alphaMode: .straight, outputBits: 16), Conversion(bits: 16, alphaMode: .straight, outputBits: 8),
        Conversion(bits: 16, alphaMode: .none, outputBits: 8), Conversion(bits: 8, alphaMode: .premultiplied, outputBits: 16),
    ]

    @Test("converted input (premultiplied, other depth) decodes to what the libpng path writes", arguments: conversions)
    func sameAsLibpngPath(_ conversion: Conversion) throws {
        // Given an image that needs unpremultiplying or a depth change (the pattern's values read as premultiplied)
        let pattern = Pattern.color(bits: conversion.bits, alpha: true, width: 19, height: 5)
        let source = try PNGRoundTripTests.image(pattern, alphaMode: conversion.alphaMode)
        let coders = try PNGTesting.coders()

        // When it is written by the fast writer and by libpng (interlaced)
        let fast = try coders.encode(source, format: "png", options: EncodeOptions(bitDepth: conversion.outputBits))
        let libpng = try coders.encode(source, format: "png", options: EncodeOptions(bitDepth: conversion.outputBits, progressive: true))

        // Then both decode to the same samples
        let options = DecodeOptions(highBitDepth: true)
        let (a, b) = (try coders.decode(data: fast, options: options), try coders.decode(data: libpng, options: options))
        #expect(a.pixelFormat == b.pixelFormat)
        #expect(a.alphaMode == b.alphaMode)
        #expect(a.bytes == b.bytes)
    }

    @Test("each of the five filters wins on a row built for it, and the file still round-trips")
    func everyFilter() throws {
        // Given rows built so that None, Up, Sub, Average and Paeth each win one (rows 1, 3, 5, 7, 9)
        let width = 64, height = 10
        let rgba = Self.filterShowcase(width: width, height: height)
        let image = try Image(width: width, height: height, pixelFormat: .rgba8, alphaMode: .straight, bytes: rgba)

        // When encoded
        let coders = try PNGTesting.coders()
        let png = try coders.encode(image, format: "png")

        // Then those rows carry those filter types, and the pixels come back exactly
        #expect(try coders.decode(data: png).bytes == rgba)
        guard let types = try PNGChunks.filterTypes(of: png, rowBytes: width * 4) else { try Skip.because("python3 is not installed; filter types not checked", bootstrapProvides: true) }
        #expect(types.count == height)
        #expect([1, 3, 5, 7, 9].map { types[$0] } == [0, 2, 1, 3, 4], "filter types per row: \(types)")
    }

    /// Noise rows between rows where one filter predicts every byte (or, for Paeth, all but two pixels).
    static func filterShowcase(width: Int, height: Int) -> [UInt8] {
        var generator = SplitMix64(seed: 0x46494C54)  // fixed seed: a failure reproduces
        let rowBytes = width * 4
        var rows = [[UInt8]]()
        for y in 0..<height {
            var row = [UInt8](repeating: 0, count: rowBytes)
            for i in 0..<rowBytes {
                let x = i / 4
                switch y {
                case 1: row[i] = 0  // None: all zero (Sub ties; the earlier type wins)
                case 3: row[i] = rows[2][i]  // Up: the row above again (Paeth ties; the earlier type wins)
                case 5: row[i] = UInt8(x * 2 + (i % 4) * 40)  // Sub: a ramp of step 2 under noise
                case 7: row[i] = UInt8(((i >= 4 ? Int(row[i - 4]) : 0) + Int(rows[6][i])) / 2)  // Average, exactly
                case 8: row[i] = x < 32 ? 60 : 50
                case 9: row[i] = x < 32 ? 100 : 50  // Paeth: left in the left half, up in the right
                default: row[i] = UInt8.random(in: 0...255, using: &generator)
                }
            }
            rows.append(row)
        }
        return rows.flatMap { $0 }
    }

    /// The zlib header's level field (RFC 1950 FLEVEL), which libdeflate sets from its level: 1 for levels 2-5, 2 for
    /// levels 6-7. It is how a test sees which level the writer chose without timing anything.
    private static func zlibLevelField(of png: [UInt8]) throws -> UInt8 {
        let idat = try #require(PNGChunks.chunks(of: png).first { $0.type == "IDAT" })
        try #require(idat.data.count >= 2)
        return idat.data[1] >> 6
    }

    /// 320×240 opaque RGBA: a camera-like photo (a smooth gradient under ±12 of grain) or a drawing (flat boxes of
    /// four colours on a background).
    private static func rows(photographic: Bool) throws -> Image {
        let width = 320, height = 240
        var generator = SplitMix64(seed: 31)
        var bytes = [UInt8](repeating: 255, count: width * height * 4)
        let palette: [[UInt8]] = [[250, 250, 245], [220, 60, 40], [40, 90, 200], [30, 30, 30]]
        for y in 0..<height {
            for x in 0..<width {
                for channel in 0..<3 {
                    let value: Int
                    if photographic {
                        let base = (x * 200 / width + y * 55 / height + channel * 20) % 256
                        value = base + Int(generator.next() % 25) - 12
                    } else {
                        value = Int(palette[(x / 40 + y / 60) % 2 == 0 ? 0 : 1 + (x / 80 + y / 60) % 3][channel])
                    }
                    bytes[(y * width + x) * 4 + channel] = UInt8(clamping: value)
                }
            }
        }
        return try Image(width: width, height: height, pixelFormat: .rgba8, alphaMode: .none, bytes: bytes)
    }

    @Test("with no speed stated the level follows the rows (photographic: level 5, drawing: level 7), never the pixels; a stated speed is kept")
    func defaultLevelFollowsTheRows() throws {
        let coders = try PNGTesting.coders()
        for (photographic, field) in [(true, UInt8(1)), (false, UInt8(2))] {
            let image = try Self.rows(photographic: photographic)
            let png = try coders.encode(image, format: "png")
            #expect(try Self.zlibLevelField(of: png) == field, "photographic: \(photographic)")
            let decoded = try coders.decode(data: png)
            #expect(decoded.bytes == image.bytes, "photographic: \(photographic)")
        }
        // Speed 6 states level 7: the caller's choice wins over the rows'.
        let stated = try coders.encode(try Self.rows(photographic: true), format: "png", options: EncodeOptions(speed: 6))
        #expect(try Self.zlibLevelField(of: stated) == 2)
    }

    @Test("speed changes the filters and level, never the pixels; speed 8 and up use only Sub")
    func speeds() throws {
        let pattern = Pattern.color(bits: 8, alpha: true, width: 67, height: 33)
        let image = try PNGRoundTripTests.image(pattern, alphaMode: .straight)
        let coders = try PNGTesting.coders()
        for speed in [1, 2, 5, 6, 7, 8, 9, 10] {
            let png = try coders.encode(image, format: "png", options: EncodeOptions(speed: speed))
            try Self.expectValidChunks(png, width: 67, height: 33, layout: .rgba8)
            try PNGTesting.expectDecodes(png, to: pattern, alphaMode: .straight)
            if speed >= 8, let types = try PNGChunks.filterTypes(of: png, rowBytes: 67 * 4) {
                #expect(Set(types) == [1], "speed \(speed): filter types \(Set(types))")
            }
        }
    }
}
