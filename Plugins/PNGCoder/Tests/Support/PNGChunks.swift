/// Minimal PNG chunk surgery for fixtures that no tool writes correctly, and for hand-made hostile headers.
///
/// ImageMagick 6 writes a wrong tRNS chunk for 1-, 2- and 4-bit gray images, so those fixtures are its 8-bit-safe
/// output with a correct tRNS chunk inserted before the first IDAT.
enum PNGChunks {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// One chunk: length, type, data, CRC-32 of type + data.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return bigEndian(UInt32(data.count)) + typeBytes + data + bigEndian(crc32(typeBytes + data))
    }

    /// An IHDR chunk.
    static func header(width: UInt32, height: UInt32, bitDepth: UInt8, colorType: UInt8, interlaced: Bool = false) -> [UInt8] {
        chunk("IHDR", bigEndian(width) + bigEndian(height) + [bitDepth, colorType, 0, 0, interlaced ? 1 : 0])
    }

    /// `png` with `chunk` inserted before its first IDAT chunk.
    static func inserting(_ chunk: [UInt8], beforeIDATof png: [UInt8]) -> [UInt8] {
        var offset = 8
        while offset + 8 <= png.count {
            let length = Int(png[offset]) << 24 | Int(png[offset + 1]) << 16 | Int(png[offset + 2]) << 8 | Int(png[offset + 3])
            if Array(png[offset + 4..<offset + 8]) == Array("IDAT".utf8) {
                return Array(png[..<offset]) + chunk + Array(png[offset...])
            }
            offset += 12 + length
        }
        return png
    }

    /// Byte offset of the first chunk of `type`, or nil.
    static func offset(of type: String, in png: [UInt8]) -> Int? {
        var offset = 8
        while offset + 8 <= png.count {
            let length = Int(png[offset]) << 24 | Int(png[offset + 1]) << 16 | Int(png[offset + 2]) << 8 | Int(png[offset + 3])
            if Array(png[offset + 4..<offset + 8]) == Array(type.utf8) { return offset }
            offset += 12 + length
        }
        return nil
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// CRC-32 (ISO 3309), as PNG chunks use it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

extension PNGChunks {
    /// `png` with its IHDR replaced by `header` (same length: only the fields and the CRC change).
    static func replacingHeader(of png: [UInt8], with header: [UInt8]) -> [UInt8] {
        guard let offset = offset(of: "IHDR", in: png) else { return png }
        return Array(png[..<offset]) + header + Array(png[(offset + header.count)...])
    }

    /// A palette image made from a `bits`-deep gray PNG: the IDAT samples are reused as palette indices.
    /// (ImageMagick never writes 1-bit palettes.) `palette` holds RGB entries; `alphas`, when given, a tRNS chunk.
    static func palette(fromGray png: [UInt8], width: Int, height: Int, bits: UInt8, palette: [[UInt8]],
                        alphas: [UInt8]? = nil) -> [UInt8] {
        var result = replacingHeader(
            of: png, with: header(width: UInt32(width), height: UInt32(height), bitDepth: bits, colorType: 3))
        result = inserting(chunk("PLTE", palette.flatMap { $0 }), beforeIDATof: result)
        if let alphas { result = inserting(chunk("tRNS", alphas), beforeIDATof: result) }
        return result
    }
}
