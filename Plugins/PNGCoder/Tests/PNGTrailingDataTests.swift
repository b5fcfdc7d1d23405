import PipelineHost
import Testing
import TestSupport

/// Nothing after the last pixel row is read. libpng, once every row is out, inflates the rest of the zlib stream to
/// find its end: a 1 MB IDAT holding 1 GiB of zeros after the image cost 1.56 s of CPU (0.06 s now). The evidence
/// here is an outcome, not a time: 8 MiB of data after the image that end in a stream without its checksum decode
/// to the image (before, libpng read all of it and then failed on the missing checksum); junk after the image is no
/// error; the same junk inside the image still is.
@Suite struct PNGTrailingDataTests {
    /// A zlib stream of stored (uncompressed) deflate blocks holding `payload`, without the final block or checksum.
    static func storedBlocks(_ payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var start = 0
        repeat {
            let piece = Array(payload[start..<min(payload.count, start + 65535)])
            let length = UInt16(piece.count)
            out += [0x00, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)] + piece
            start += 65535
        } while start < payload.count
        return out
    }

    /// A 32x24 RGBA PNG whose first IDAT holds exactly the rows (filter 0) in stored blocks; `tail`, if any, follows
    /// in a second IDAT chunk.
    static func png(tail: [UInt8], badBlockInsideImage: Bool = false) -> (png: [UInt8], rgba: [UInt8]) {
        let width = 32, height = 24
        var rgba: [UInt8] = []
        var rows: [UInt8] = []
        for y in 0..<height {
            rows.append(0)
            for x in 0..<width {
                let pixel: [UInt8] = [UInt8(x * 8), UInt8(y * 10), UInt8((x + y) * 3), 255]
                rgba += pixel
                rows += pixel
            }
        }
        var stream: [UInt8] = [0x78, 0x01]
        if badBlockInsideImage {
            stream += storedBlocks(Array(rows.prefix(rows.count / 2))) + [0x07] + storedBlocks(Array(rows.dropFirst(rows.count / 2)))
        } else {
            stream += storedBlocks(rows)
        }
        let png = PNGChunks.signature + PNGChunks.header(width: UInt32(width), height: UInt32(height), bitDepth: 8, colorType: 6)
            + PNGChunks.chunk("IDAT", stream) + (tail.isEmpty ? [] : PNGChunks.chunk("IDAT", tail)) + PNGChunks.chunk("IEND", [])
        return (png, rgba)
    }

    @Test func bytesAfterTheLastRowAreNeverInflated() throws {
        // BTYPE 11 is reserved: zlib fails with "invalid block type" if it ever reads this byte.
        let (png, rgba) = Self.png(tail: [0x07] + [UInt8](repeating: 0xA5, count: 100))
        let image = try PNGTesting.coders().decode(data: png)
        #expect(image.bytes == rgba)
    }

    @Test func aLongZeroTailAfterTheImageDecodesToTheImage() throws {
        // 8 MiB of stored zeros after the image (a real bomb uses compressed blocks; stored ones keep the fixture
        // small to build): the image comes back exactly.
        let (png, rgba) = Self.png(tail: Self.storedBlocks([UInt8](repeating: 0, count: 8 << 20)) + [0x01, 0, 0, 0xFF, 0xFF])
        let image = try PNGTesting.coders().decode(data: png)
        #expect(image.bytes == rgba)
    }

    @Test func theSameBadBlockInsideTheImageStillFails() throws {
        let (png, _) = Self.png(tail: [], badBlockInsideImage: true)
        let status = failureStatus { _ = try PNGTesting.coders().decode(data: png) }
        #expect(status == .invalidData)
    }
}
