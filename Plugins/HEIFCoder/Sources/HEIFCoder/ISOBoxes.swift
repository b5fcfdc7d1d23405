/// A bounded reader of ISO-BMFF box headers, for the two facts libheif 1.15 cannot give us: the `ftyp` brands
/// before any parsing (sniffing must not allocate) and the type of the primary item when libheif rejects a file
/// (so that a JPEG-, VVC- or uncompressed-coded item reads as UNSUPPORTED rather than as corrupt data).
///
/// Every read is checked against the buffer; nothing here allocates beyond small arrays of brands.
enum ISOBoxes {
    /// A four-character code as a big-endian UInt32 ("ftyp" = 0x66747970).
    typealias FourCC = UInt32

    static func fourCC(_ text: StaticString) -> FourCC {
        text.withUTF8Buffer { bytes in bytes.reduce(0) { $0 << 8 | FourCC($1) } }
    }

    static func text(_ code: FourCC) -> String {
        let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: code >> $0) }
        return String(decoding: bytes.map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }

    /// One box header: its type, where its payload starts and where the box claims to end (possibly past the data).
    struct Header {
        let type: FourCC
        let payloadStart: Int
        let declaredEnd: Int
    }

    static func readUInt32(_ data: UnsafeBufferPointer<UInt8>, _ offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= data.count else { return nil }
        return UInt32(data[offset]) << 24 | UInt32(data[offset + 1]) << 16 | UInt32(data[offset + 2]) << 8
            | UInt32(data[offset + 3])
    }

    static func readUInt16(_ data: UnsafeBufferPointer<UInt8>, _ offset: Int) -> UInt16? {
        guard offset >= 0, offset + 2 <= data.count else { return nil }
        return UInt16(data[offset]) << 8 | UInt16(data[offset + 1])
    }

    /// The header of the box at `offset`, or nil when fewer than 8 header bytes remain or the size is impossible.
    /// A size of 0 means "to the end of the enclosing range".
    static func header(_ data: UnsafeBufferPointer<UInt8>, at offset: Int, end: Int) -> Header? {
        guard let size32 = readUInt32(data, offset), let type = readUInt32(data, offset + 4) else { return nil }
        var size = UInt64(size32)
        var headerSize = 8
        if size32 == 1 {
            guard let high = readUInt32(data, offset + 8), let low = readUInt32(data, offset + 12) else { return nil }
            size = UInt64(high) << 32 | UInt64(low)
            headerSize = 16
        } else if size32 == 0 {
            size = UInt64(end - offset)
        }
        guard size >= UInt64(headerSize), size <= UInt64(Int.max / 2) else { return nil }
        return Header(type: type, payloadStart: offset + headerSize, declaredEnd: offset + Int(size))
    }

    /// The children of a container payload, stopping at the first malformed header. `runsPast` is true when a
    /// child claims to end after `end` (the data is cut short, or the box lies).
    static func children(_ data: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, limit: Int = 4096)
        -> (boxes: [Header], runsPast: Bool)
    {
        var boxes: [Header] = []
        var offset = start
        while offset < end, boxes.count < limit, let box = header(data, at: offset, end: end) {
            boxes.append(box)
            if box.declaredEnd > end { return (boxes, true) }
            offset = box.declaredEnd
        }
        return (boxes, false)
    }
}
