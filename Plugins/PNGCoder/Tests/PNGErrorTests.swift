import PipelineHost
import Testing
import TestSupport

/// Bad input gives the right status with a message, never a crash or a huge allocation.
@Suite("PNG errors and limits")
struct PNGErrorTests {
    /// An encoded 8-bit RGBA PNG of a busy pattern (so that its IDAT spans many bytes).
    static func samplePNG() throws -> [UInt8] {
        let image = try PNGRoundTripTests.image(.color(bits: 8, alpha: true, width: 60, height: 40), alphaMode: .straight)
        return try PNGTesting.coders().encode(image, format: "png")
    }

    /// The status a decode failed with, or nil when it succeeded.
    static func decodeStatus(_ data: [UInt8], _ options: DecodeOptions = DecodeOptions()) throws -> PluginStatus? {
        let coders = try PNGTesting.coders()
        return failureStatus { _ = try coders.decode(data: data, options: options) }
    }

    @Test("a PNG cut anywhere before its last pixel row is .truncated")
    func truncated() throws {
        let png = try Self.samplePNG()
        let coders = try PNGTesting.coders()
        // Every length from just past the signature to just before IEND (12 bytes); step to keep the test short.
        for length in stride(from: 9, to: png.count - 12, by: max(1, png.count / 97)) {
            let cut = Array(png.prefix(length))
            let error = #expect(throws: PipelineError.self, "cut at \(length) of \(png.count)") {
                _ = try coders.decode(data: cut)
            }
            #expect(error?.status == .truncated, "cut at \(length): \(error.map { "\($0)" } ?? "")")
        }
    }

    @Test("a PNG without its IEND chunk still decodes (every pixel row is there)")
    func missingIEND() throws {
        let png = try Self.samplePNG()
        #expect(try Self.decodeStatus(Array(png.dropLast(12))) == nil)
    }

    @Test("a corrupted IDAT is .invalidData, with or without a matching CRC")
    func corrupted() throws {
        let png = try Self.samplePNG()
        let idat = try #require(PNGChunks.offset(of: "IDAT", in: png))
        // Flip bits inside the compressed data, leaving the CRC stale.
        var stale = png
        for i in 0..<16 { stale[idat + 8 + 2 + i] ^= 0x5A }
        #expect(try Self.decodeStatus(stale) == .invalidData)

        // Same corruption with a recomputed CRC: zlib itself must reject it.
        let length = Int(png[idat]) << 24 | Int(png[idat + 1]) << 16 | Int(png[idat + 2]) << 8 | Int(png[idat + 3])
        var fixed = stale
        let crc = PNGChunks.bigEndian(PNGChunks.crc32(Array(fixed[(idat + 4)..<(idat + 8 + length)])))
        fixed.replaceSubrange((idat + 8 + length)..<(idat + 12 + length), with: crc)
        let error = #expect(throws: PipelineError.self) { _ = try PNGTesting.coders().decode(data: fixed) }
        #expect(error?.status == .invalidData)
        #expect("\(error.map { "\($0)" } ?? "")".contains("PNG"))
    }

    @Test("a malformed header is .invalidData for probe and decode")
    func badHeader() throws {
        // Bit depth 3 does not exist.
        let png = PNGChunks.signature + PNGChunks.header(width: 4, height: 4, bitDepth: 3, colorType: 0)
            + PNGChunks.chunk("IDAT", [0x78, 0x01]) + PNGChunks.chunk("IEND", [])
        let coders = try PNGTesting.coders()
        #expect(try Self.decodeStatus(png) == .invalidData)
        let error = #expect(throws: PipelineError.self) { _ = try coders.probe(data: png) }
        #expect(error?.status == .invalidData)
        // A header CRC that does not match.
        var badCRC = PNGChunks.signature + PNGChunks.header(width: 4, height: 4, bitDepth: 8, colorType: 2)
        badCRC[badCRC.count - 1] ^= 0xFF
        #expect(try Self.decodeStatus(badCRC + PNGChunks.chunk("IEND", [])) == .invalidData)
    }

    @Test("limits are refused with .limitExceeded")
    func limits() throws {
        let png = try Self.samplePNG()  // 60x40
        #expect(try Self.decodeStatus(png, DecodeOptions(limits: DecodeLimits(maxPixels: 2399))) == .limitExceeded)
        #expect(try Self.decodeStatus(png, DecodeOptions(limits: DecodeLimits(maxPixels: 2400))) == nil)
        #expect(try Self.decodeStatus(png, DecodeOptions(limits: DecodeLimits(maxDimension: 59))) == .limitExceeded)
        #expect(try Self.decodeStatus(png, DecodeOptions(limits: DecodeLimits(maxInputBytes: 100))) == .limitExceeded)
    }

    @Test("a header claiming 100000x100000 is refused before anything is allocated")
    func hugeHeader() throws {
        let png = PNGChunks.signature + PNGChunks.header(width: 100_000, height: 100_000, bitDepth: 8, colorType: 6)
            + PNGChunks.chunk("IDAT", [0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF]) + PNGChunks.chunk("IEND", [])
        let coders = try PNGTesting.coders()
        // The probe only reads the header, so it succeeds and reports the claim.
        let info = try coders.probe(data: png)
        #expect((info.width, info.height) == (100_000, 100_000))
        // Default limits (268 Mpixel) refuse it.
        #expect(try Self.decodeStatus(png) == .limitExceeded)
        // Without pixel limits, the plugin sees that 74 bytes cannot hold 40 GB of pixels.
        let unlimited = DecodeLimits(maxPixels: 0, maxDimension: 0)
        #expect(try Self.decodeStatus(png, DecodeOptions(limits: unlimited)) == .truncated)
    }

    @Test("a PNG has one page and one frame")
    func pagesAndFrames() throws {
        let png = try Self.samplePNG()
        #expect(try Self.decodeStatus(png, DecodeOptions(pageIndex: 1)) == .notFound)
        #expect(try Self.decodeStatus(png, DecodeOptions(frameIndex: 1)) == .notFound)
    }

    @Test("bytes that only start like a PNG are .invalidData or .truncated, never a crash")
    func garbage() throws {
        var generator = SplitMix64(seed: 0x504E47)  // fixed seed: a failure reproduces
        let png = try Self.samplePNG()
        for _ in 0..<50 {
            var bytes = png
            for _ in 0..<8 {
                let index = Int.random(in: 8..<bytes.count, using: &generator)
                bytes[index] = UInt8.random(in: 0...255, using: &generator)
            }
            let status = try Self.decodeStatus(bytes)
            #expect(status == nil || status == .invalidData || status == .truncated, "status \(String(describing: status))")
        }
    }
}
