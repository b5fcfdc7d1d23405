import PipelineHost
import Testing
import TestSupport

/// The filters of rows whose pixels are 3 to 8 bytes (8- and 16-bit RGB and RGBA, 16-bit gray with alpha) are
/// undone by the plugin's own SSE2 code (png_unfilter.c) on the whole-inflate path, and by libpng on every other.
/// These files are written here, row by row with the PNG specification's filters (section 9) over pseudo-random
/// pixels, every filter type in turn and small values often enough that Paeth's three choices and its ties all
/// occur: each must decode to exactly its pixels, on the fast path and, with a damaged ancillary chunk sending the
/// same file to libpng whole, on libpng's.
@Suite("PNG row filters")
struct PNGUnfilterTests {
    struct Fixture {
        var png: [UInt8]
        /// The pixels as the decoder gives them (16-bit samples for a 16-bit file), RGBA.
        var rgba: [UInt16]
        var highBitDepth: Bool
    }

    /// A `width` x `height` image of colour type `color` (2 RGB, 6 RGBA, 4 gray with alpha) and `depth` bits per
    /// sample, whose row `y` uses filter type `filters(y)`.
    static func fixture(width: Int, height: Int, color: UInt8, depth: Int, seed: UInt64, filters: (Int) -> UInt8) -> Fixture {
        var random = SplitMix64(seed: seed)
        let channels = color == 2 ? 3 : color == 6 ? 4 : 2
        let sampleBytes = depth / 8, bpp = channels * sampleBytes, rowBytes = width * bpp
        let maximum = UInt16((1 << depth) - 1)
        var samples = [UInt16](repeating: 0, count: width * height * channels)
        for index in samples.indices {
            let draw = random.next()
            // A quarter of the samples from 0...3, so neighbours are often equal (Paeth's ties).
            samples[index] = draw & 3 == 0 ? UInt16(draw >> 8 & 3) : UInt16(truncatingIfNeeded: draw >> 16) & maximum
        }
        var raw = [UInt8](repeating: 0, count: rowBytes * height)
        for (index, sample) in samples.enumerated() {
            if sampleBytes == 2 {
                raw[index * 2] = UInt8(sample >> 8)
                raw[index * 2 + 1] = UInt8(sample & 0xFF)
            } else {
                raw[index] = UInt8(sample)
            }
        }
        var filtered: [UInt8] = []
        for y in 0..<height {
            let type = filters(y)
            filtered.append(type)
            for i in 0..<rowBytes {
                let x = Int(raw[y * rowBytes + i])
                let a = i >= bpp ? Int(raw[y * rowBytes + i - bpp]) : 0
                let b = y > 0 ? Int(raw[(y - 1) * rowBytes + i]) : 0
                let c = i >= bpp && y > 0 ? Int(raw[(y - 1) * rowBytes + i - bpp]) : 0
                let predictor: Int
                switch type {
                case 1: predictor = a
                case 2: predictor = b
                case 3: predictor = (a + b) / 2
                case 4:
                    let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                default: predictor = 0
                }
                filtered.append(UInt8(truncatingIfNeeded: x - predictor))
            }
        }
        let png = PNGChunks.signature + PNGChunks.header(width: UInt32(width), height: UInt32(height), bitDepth: UInt8(depth), colorType: color)
            + PNGChunks.chunk("IDAT", storedZlib(filtered)) + PNGChunks.chunk("IEND", [])
        var rgba: [UInt16] = []
        for pixel in 0..<(width * height) {
            let s = Array(samples[pixel * channels..<(pixel + 1) * channels])
            rgba += channels == 2 ? [s[0], s[0], s[0], s[1]] : [s[0], s[1], s[2], channels == 4 ? s[3] : maximum]
        }
        return Fixture(png: png, rgba: rgba, highBitDepth: depth == 16)
    }

    /// A zlib stream of stored blocks (no compression needed: the inflate is not what these files test).
    static func storedZlib(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65535, data.count - offset)
            let last = offset + count == data.count
            out += [last ? 1 : 0, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[offset..<offset + count]
            offset += count
        } while offset < data.count
        var s1: UInt32 = 1, s2: UInt32 = 0
        for byte in data {
            s1 = (s1 + UInt32(byte)) % 65521
            s2 = (s2 + s1) % 65521
        }
        return out + PNGChunks.bigEndian(s2 << 16 | s1)
    }

    static func decodedSamples(_ png: [UInt8], highBitDepth: Bool) throws -> [UInt16] {
        let image = try PNGTesting.coders().decode(data: png, options: DecodeOptions(highBitDepth: highBitDepth))
        #expect(image.pixelFormat == (highBitDepth ? .rgba16 : .rgba8))
        var samples: [UInt16] = []
        for y in 0..<image.height {
            for x in 0..<image.width {
                let pixel = image.pixel(x: x, y: y)
                samples += [pixel.r, pixel.g, pixel.b, pixel.a]
            }
        }
        return samples
    }

    /// `png` with a tEXt chunk whose CRC is wrong before its rows: the whole-inflate path refuses the file, and
    /// libpng, reading it itself, drops the chunk and decodes the rows with its own unfiltering.
    static func sentToLibpng(_ png: [UInt8]) -> [UInt8] {
        var text = PNGChunks.chunk("tEXt", Array("Comment\u{0}route".utf8))
        text[text.count - 1] ^= 0xFF
        return PNGChunks.inserting(text, beforeIDATof: png)
    }

    @Test("every filter type, odd and wide rows, 3- to 8-byte pixels: the same pixels on both paths",
          arguments: [(UInt8(2), 16, 37, 23), (6, 16, 37, 23), (2, 16, 1, 9), (6, 16, 2, 7), (2, 16, 1601, 12), (6, 16, 640, 11),
                      (2, 8, 37, 23), (6, 8, 37, 23), (2, 8, 1, 9), (6, 8, 641, 10), (4, 16, 37, 23), (4, 16, 1, 5),
                      (4, 8, 19, 7)])
    func everyFilterDecodesToItsPixels(color: UInt8, depth: Int, width: Int, height: Int) throws {
        for (name, filters) in [("rotating", { (y: Int) in UInt8(y % 5) }), ("all Paeth", { _ in 4 }),
                                ("all Average", { _ in 3 }), ("all Sub", { _ in 1 })] as [(String, (Int) -> UInt8)] {
            let fixture = Self.fixture(width: width, height: height, color: color, depth: depth, seed: UInt64(width * 31 + height),
                                       filters: filters)
            let shape = "\(name), colour type \(color), \(depth) bits, \(width)x\(height)"
            #expect(try Self.decodedSamples(fixture.png, highBitDepth: fixture.highBitDepth) == fixture.rgba, "\(shape), fast path")
            #expect(try Self.decodedSamples(Self.sentToLibpng(fixture.png), highBitDepth: fixture.highBitDepth) == fixture.rgba,
                    "\(shape), libpng's path")
        }
    }

    @Test("a row with filter type 5 is libpng's error to report, on the whole-inflate path too")
    func anUnknownFilterTypeIsInvalidData() throws {
        let fixture = Self.fixture(width: 16, height: 8, color: 6, depth: 16, seed: 7) { $0 == 5 ? 5 : UInt8($0 % 5) }
        do {
            _ = try PNGTesting.coders().decode(data: fixture.png, options: DecodeOptions(highBitDepth: true))
            Issue.record("a row with filter type 5 decoded")
        } catch let error as PipelineError {
            #expect(error.status == .invalidData, "\(error)")
        }
    }
}
