/// The two changes the metadata policy makes to an Exif block before an encoder embeds it, both through the one
/// bounds-checked reader (`TIFFBlockReader`), so a hostile block can make them keep less, never read out of bounds.
enum ExifRewriting {
    /// The block with IFD0's Orientation set to 1 (top-left): the output's pixels are already turned, and a viewer
    /// that honoured the source's value would turn them again. Patched in place (a SHORT's value sits in its entry),
    /// so every other tag, offset and the IFD1 thumbnail stay byte for byte; a block without the tag is unchanged.
    static func uprighted(_ block: [UInt8]) -> [UInt8] {
        guard let reader = TIFFBlockReader(block), let entry = reader.entries(at: reader.firstIFD)[0x0112],
              entry.type == 3, entry.count == 1, entry.valueOffset + 2 <= block.count else { return block }
        var out = block
        out[entry.valueOffset] = reader.little ? 1 : 0
        out[entry.valueOffset + 1] = reader.little ? 0 : 1
        return out
    }

    /// A new block holding only IFD0's Artist (315) and Copyright (33432), their bytes as the source stored them (a
    /// Copyright may hold two NUL-separated notices, photographer's and editor's); nil when the source has neither.
    /// Everything else — camera, dates, GPS, maker notes, the thumbnail — is left behind.
    static func ownershipOnly(_ block: [UInt8]) -> [UInt8]? {
        guard let reader = TIFFBlockReader(block) else { return nil }
        let ifd0 = reader.entries(at: reader.firstIFD)
        let kept = ([0x013B, 0x8298] as [UInt16]).compactMap { (tag: UInt16) -> (tag: UInt16, value: [UInt8])? in
            guard let entry = ifd0[tag], entry.type == 2, entry.count > 0, entry.count <= 65_536, entry.valueOffset >= 0,
                  entry.valueOffset + entry.count <= block.count else { return nil }
            var value = Array(block[entry.valueOffset..<entry.valueOffset + entry.count])
            if value.last != 0 { value.append(0) }
            return value.contains(where: { $0 != 0 }) ? (tag, value) : nil
        }
        guard !kept.isEmpty else { return nil }
        return TIFFBlockWriter(littleEndian: reader.little).ifd0(ascii: kept)
    }
}

/// Writes the smallest TIFF-structured block: a header and one IFD of ASCII entries.
struct TIFFBlockWriter {
    let littleEndian: Bool

    func ifd0(ascii entries: [(tag: UInt16, value: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = littleEndian ? [0x49, 0x49, 0x2A, 0x00] : [0x4D, 0x4D, 0x00, 0x2A]
        out += u32(8)
        let sorted = entries.sorted { $0.tag < $1.tag }
        var data: [UInt8] = []
        let dataStart = 8 + 2 + sorted.count * 12 + 4
        out += u16(UInt16(sorted.count))
        for (tag, value) in sorted {
            out += u16(tag) + u16(2) + u32(UInt32(value.count))
            if value.count <= 4 {
                out += value + [UInt8](repeating: 0, count: 4 - value.count)
            } else {
                out += u32(UInt32(dataStart + data.count))
                data += value
                if data.count % 2 == 1 { data.append(0) }
            }
        }
        return out + u32(0) + data
    }

    private func u16(_ v: UInt16) -> [UInt8] {
        littleEndian ? [UInt8(v & 0xff), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xff)]
    }

    private func u32(_ v: UInt32) -> [UInt8] {
        littleEndian ? [0, 8, 16, 24].map { UInt8(v >> $0 & 0xff) } : [24, 16, 8, 0].map { UInt8(v >> $0 & 0xff) }
    }
}

/// The XMP side of "the pixels are upright now".
enum XMPRewriting {
    /// The packet with `tiff:Orientation` said as 1, in attribute (`tiff:Orientation="6"`) and element
    /// (`<tiff:Orientation>6</tiff:Orientation>`) form alike; the rest of the packet is untouched.
    static func uprighted(_ packet: [UInt8]) -> [UInt8] {
        var out = packet
        for (opening, closing) in [(Array("tiff:Orientation=\"".utf8), UInt8(ascii: "\"")),
                                   (Array("tiff:Orientation='".utf8), UInt8(ascii: "'")),
                                   (Array("<tiff:Orientation>".utf8), UInt8(ascii: "<"))] {
            out = replacingValues(in: out, after: opening, until: closing)
        }
        return out
    }

    /// Every value between `opening` and the next `closing` (a digit run of at most 3) replaced by "1".
    private static func replacingValues(in bytes: [UInt8], after opening: [UInt8], until closing: UInt8) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == opening[0], i + opening.count <= bytes.count, bytes[i..<i + opening.count].elementsEqual(opening) {
                let start = i + opening.count
                var end = start
                while end < bytes.count, end - start <= 3, bytes[end] != closing { end += 1 }
                if end < bytes.count, bytes[end] == closing, end > start,
                   bytes[start..<end].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == 0x20 }) {
                    out += opening + [UInt8(ascii: "1")]
                    i = end
                    continue
                }
            }
            out.append(bytes[i])
            i += 1
        }
        return out
    }
}
