/// Marker-level surgery on JPEG files, for fixtures no tool writes: Exif orientation blocks in either byte
/// order, patched frame headers, damaged entropy-coded data.
enum JPEGMarkers {
    /// `jpeg` with an APP1 Exif block holding IFD0 tag 0x0112 = `orientation`, inserted right after SOI.
    static func insertingExif(orientation: UInt16, littleEndian: Bool, into jpeg: [UInt8]) -> [UInt8] {
        insertingAPP1(exifPayload(orientation: orientation, littleEndian: littleEndian), into: jpeg)
    }

    /// "Exif\0\0" + a TIFF header + IFD0 with one SHORT entry (tag 0x0112).
    static func exifPayload(orientation: UInt16, littleEndian: Bool) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: UInt32) -> [UInt8] {
            let b = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
            return littleEndian ? b.reversed() : b
        }
        let tiff = (littleEndian ? Array("II".utf8) : Array("MM".utf8)) + u16(42) + u32(8)
            + u16(1) + u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0) + u32(0)
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    /// `jpeg` with an APP1 segment carrying `payload`, inserted right after SOI.
    static func insertingAPP1(_ payload: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return Array(jpeg[0..<2]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + Array(jpeg[2...])
    }

    /// Offset of the first marker 0xFF `code` (a segment start), or nil.
    static func offset(of code: UInt8, in jpeg: [UInt8]) -> Int? {
        var position = 2
        while position + 4 <= jpeg.count, jpeg[position] == 0xFF {
            let marker = jpeg[position + 1]
            if marker == code { return position }
            if marker == 0xDA || marker == 0xD9 { return nil }
            position += 2 + Int(jpeg[position + 2]) << 8 + Int(jpeg[position + 3])
        }
        return nil
    }

    /// The first frame header (SOF0..SOF2).
    static func frameHeader(in jpeg: [UInt8]) -> Int? {
        offset(of: 0xC0, in: jpeg) ?? offset(of: 0xC1, in: jpeg) ?? offset(of: 0xC2, in: jpeg)
    }

    /// `jpeg` whose frame header claims `width` x `height` (nothing else changes).
    static func claimingSize(width: UInt16, height: UInt16, _ jpeg: [UInt8]) -> [UInt8] {
        guard let sof = frameHeader(in: jpeg) else { return jpeg }
        var patched = jpeg
        patched[sof + 5] = UInt8(height >> 8); patched[sof + 6] = UInt8(height & 0xFF)
        patched[sof + 7] = UInt8(width >> 8); patched[sof + 8] = UInt8(width & 0xFF)
        return patched
    }

    /// Offset of the first byte of entropy-coded data (after the first SOS header).
    static func scanData(in jpeg: [UInt8]) -> Int? {
        guard let sos = offset(of: 0xDA, in: jpeg) else { return nil }
        return sos + 2 + Int(jpeg[sos + 2]) << 8 + Int(jpeg[sos + 3])
    }

    /// Byte ranges of every marker segment (marker, length and content; SOS without its scan data), in file order.
    static func segments(in jpeg: [UInt8]) -> [Range<Int>] {
        var ranges = [Range<Int>]()
        var position = 2
        while position + 4 <= jpeg.count {
            guard jpeg[position] == 0xFF else { return ranges }
            let marker = jpeg[position + 1]
            if marker == 0xD9 { return ranges }
            let end = position + 2 + Int(jpeg[position + 2]) << 8 + Int(jpeg[position + 3])
            ranges.append(position..<min(end, jpeg.count))
            position = end
            if marker == 0xDA {
                // Skip the entropy-coded data: up to a marker that is neither stuffing (FF 00) nor a restart.
                while position + 1 < jpeg.count,
                      !(jpeg[position] == 0xFF && jpeg[position + 1] != 0 && !(0xD0...0xD7).contains(jpeg[position + 1])) {
                    position += 1
                }
            }
        }
        return ranges
    }
}
