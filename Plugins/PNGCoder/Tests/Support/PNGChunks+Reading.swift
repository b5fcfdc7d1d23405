import Foundation
import TestSupport

/// Reading the chunk structure of a PNG the encoder wrote, to check it against the PNG specification (section 5):
/// what a lenient decoder would forgive, such as a bad CRC or a chunk after IEND, fails here.
extension PNGChunks {
    struct Chunk: Equatable {
        var type: String
        var data: [UInt8]
        /// Whether the stored CRC-32 matches type + data.
        var crcMatches: Bool
    }

    enum ReadingError: Error, CustomStringConvertible {
        case malformed(String)
        var description: String {
            switch self {
            case .malformed(let text): text
            }
        }
    }

    /// Every chunk of `png` in order; throws when the signature is wrong or a chunk runs past the end.
    static func chunks(of png: [UInt8]) throws -> [Chunk] {
        guard Array(png.prefix(8)) == signature else { throw ReadingError.malformed("no PNG signature") }
        var result: [Chunk] = []
        var offset = 8
        while offset < png.count {
            guard offset + 12 <= png.count else { throw ReadingError.malformed("chunk header cut at \(offset)") }
            let length = Int(readBigEndian(png, offset))
            guard length <= 0x7FFF_FFFF, offset + 12 + length <= png.count else {
                throw ReadingError.malformed("chunk at \(offset) claims \(length) bytes past the end")
            }
            let typeAndData = Array(png[(offset + 4)..<(offset + 8 + length)])
            let stored = readBigEndian(png, offset + 8 + length)
            result.append(Chunk(type: String(decoding: typeAndData.prefix(4), as: UTF8.self),
                                data: Array(typeAndData.dropFirst(4)), crcMatches: crc32(typeAndData) == stored))
            offset += 12 + length
        }
        return result
    }

    static func readBigEndian(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    /// The filter type byte of every row of a non-interlaced PNG, read by inflating its IDAT data with python3's
    /// zlib (an implementation independent of the encoder's libdeflate). Nil when python3 is missing.
    static func filterTypes(of png: [UInt8], rowBytes: Int) throws -> [UInt8]? {
        guard CommandLine.hasTool("python3") else { return nil }
        let zlibStream = try chunks(of: png).filter { $0.type == "IDAT" }.flatMap(\.data)
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/idat.zlib"
        try Data(zlibStream).write(to: URL(fileURLWithPath: file))
        let script = """
            import sys, zlib
            data = zlib.decompress(open(sys.argv[1], 'rb').read())
            line = int(sys.argv[2]) + 1
            assert len(data) % line == 0, 'inflated %d bytes, not whole rows of %d' % (len(data), line)
            print(' '.join(str(data[i]) for i in range(0, len(data), line)))
            """
        let run = try CommandLine.run("/usr/bin/env", ["python3", "-c", script, file, String(rowBytes)])
        guard run.status == 0 else { throw ReadingError.malformed("python3 could not inflate the IDAT data: \(run.stderr)") }
        return run.stdout.split(whereSeparator: \.isWhitespace).compactMap { UInt8($0) }
    }
}
