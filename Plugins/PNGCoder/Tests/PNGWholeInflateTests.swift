import PipelineHost
import Testing
import TestSupport

/// The rows of a PNG under the size bound are inflated at once by libdeflate and handed to libpng as stored blocks
/// (png_inflate.c); a file that path does not take as perfect goes to libpng whole. These cases sit on its edges:
/// how the IDAT data is split, chunks it must verify before trusting, streams that end early or run on.
@Suite("PNG rows inflated at once")
struct PNGWholeInflateTests {
    /// A 16-bit RGBA pattern of 300 x 120 pixels: 288 KB of rows, so the stored stream has several 64 KiB blocks.
    static let pattern = Pattern.color(bits: 16, alpha: true, width: 300, height: 120)

    static func fixture() throws -> [UInt8] {
        try ImageMagick.png(from: pattern, ["-define", "png:color-type=6", "-define", "png:bit-depth=16"])
    }

    /// `png` with its IDAT data cut into chunks of the given sizes (repeated, the last chunk takes the rest).
    static func rechunked(_ png: [UInt8], sizes: [Int]) throws -> [UInt8] {
        let chunks = try PNGChunks.chunks(of: png)
        let stream = chunks.filter { $0.type == "IDAT" }.flatMap(\.data)
        var idat: [UInt8] = []
        var offset = 0, turn = 0
        while offset < stream.count {
            let size = min(sizes[turn % sizes.count], stream.count - offset)
            idat += PNGChunks.chunk("IDAT", Array(stream[offset..<offset + size]))
            offset += size
            turn += 1
        }
        var out = PNGChunks.signature
        var placed = false
        for chunk in chunks {
            if chunk.type == "IDAT" {
                if !placed { out += idat }
                placed = true
            } else {
                out += PNGChunks.chunk(chunk.type, chunk.data)
            }
        }
        return out
    }

    @Test("IDAT data split into 1-byte, odd and 70 KB chunks decodes to the pattern, at 16 and at 8 bits")
    func splitStreams() throws {
        guard ImageMagick.convert != nil else { try Skip.because(ImageMagick.missingMessage, bootstrapProvides: true) }
        let png = try Self.fixture()
        for sizes in [[1], [7, 1, 4093], [70_000], [Int.max]] {
            let split = try Self.rechunked(png, sizes: sizes)
            try PNGTesting.expectDecodes(split, to: Self.pattern, highBitDepth: true, format: .rgba16, alphaMode: .straight)
            try PNGTesting.expectDecodes(split, to: Self.pattern, alphaMode: .straight)
        }
    }

    @Test("an ancillary chunk with a bad CRC before the rows is dropped as libpng drops it; the image decodes")
    func badAncillaryCRC() throws {
        guard ImageMagick.convert != nil else { try Skip.because(ImageMagick.missingMessage, bootstrapProvides: true) }
        var text = PNGChunks.chunk("tEXt", Array("Comment\u{0}hello".utf8))
        text[text.count - 1] ^= 0xFF
        let png = PNGChunks.inserting(text, beforeIDATof: try Self.fixture())
        try PNGTesting.expectDecodes(png, to: Self.pattern, highBitDepth: true, format: .rgba16, alphaMode: .straight)
    }

    @Test("a bad CRC on an IDAT chunk in mid-stream is invalid data that names the CRC")
    func badIDATCRC() throws {
        guard ImageMagick.convert != nil else { try Skip.because(ImageMagick.missingMessage, bootstrapProvides: true) }
        var png = try Self.rechunked(try Self.fixture(), sizes: [1000])
        let second = try #require(PNGChunks.offset(of: "IDAT", in: png)) + 12 + 1000
        let length = Int(PNGChunks.readBigEndian(png, second))
        try #require(Array(png[second + 4..<second + 8]) == Array("IDAT".utf8) && second + 12 + length < png.count)
        png[second + 8 + length] ^= 0x01 // the second IDAT chunk's CRC
        do {
            _ = try PNGTesting.coders().decode(data: png, options: DecodeOptions())
            Issue.record("a damaged IDAT chunk decoded")
        } catch let error as PipelineError {
            #expect(error.status == .invalidData && "\(error)".contains("CRC"), "\(error)")
        }
    }

    @Test("a header one row taller than the stream is truncated, and one row shorter decodes its rows")
    func streamsThatEndEarlyOrRunOn() throws {
        guard ImageMagick.convert != nil else { try Skip.because(ImageMagick.missingMessage, bootstrapProvides: true) }
        let png = try Self.fixture()
        let width = UInt32(Self.pattern.width), height = UInt32(Self.pattern.height)
        let taller = PNGChunks.replacingHeader(of: png, with: PNGChunks.header(width: width, height: height + 1, bitDepth: 16, colorType: 6))
        do {
            _ = try PNGTesting.coders().decode(data: taller, options: DecodeOptions())
            Issue.record("a stream one row short decoded")
        } catch let error as PipelineError {
            #expect(error.status == .truncated || error.status == .invalidData, "\(error)")
        }
        // One row less: the stream runs on past the image, which libpng stops reading at its last row.
        let shorter = PNGChunks.replacingHeader(of: png, with: PNGChunks.header(width: width, height: height - 1, bitDepth: 16, colorType: 6))
        let image = try PNGTesting.coders().decode(data: shorter, options: DecodeOptions(highBitDepth: true))
        #expect(image.height == Int(height) - 1)
        let full = try PNGTesting.coders().decode(data: png, options: DecodeOptions(highBitDepth: true))
        #expect(image.bytes == Array(full.bytes.prefix(image.bytes.count)))
    }
}
