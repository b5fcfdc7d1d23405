/// The codestream inside an ISO BMFF JPEG XL container, for the one thing libjxl 0.7 cannot read itself: a `jxlc`
/// box whose size is given as a 64-bit "largesize" (size field 1), which ISO/IEC 18181-2 allows and libjxl 0.7
/// reports as truncated. Other containers are given to libjxl whole (it reads their boxes, Exif and jbrd included).
enum JXLContainer {
    /// The codestream of a container: the `jxlc` box's payload, or the `jxlp` parts concatenated (each after its
    /// 4-byte index); nil when `data` is not a container or holds neither.
    static func codestream(_ data: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard JXLDecoding.isContainer(data) else { return nil }
        var offset = 0
        var parts: [UInt8] = []
        var found = false
        while offset + 8 <= data.count {
            var size = Int(readBigEndian(data, offset, 4))
            let type = String(decoding: data[(offset + 4)..<(offset + 8)], as: UTF8.self)
            var header = 8
            if size == 1 {
                guard offset + 16 <= data.count else { return nil }
                let large = readBigEndian(data, offset + 8, 8)
                guard large <= UInt64(data.count) else { return nil }
                size = Int(large)
                header = 16
            } else if size == 0 {
                size = data.count - offset  // the box runs to the end of the file
            }
            guard size >= header, offset + size <= data.count else { return nil }
            let payload = (offset + header)..<(offset + size)
            if type == "jxlc" { return Array(data[payload]) }
            if type == "jxlp", payload.count >= 4 {
                parts += data[(payload.lowerBound + 4)..<payload.upperBound]
                found = true
            }
            offset += size
        }
        return found ? parts : nil
    }

    /// The types of a container's top-level boxes, in order (a Brotli-compressed `brob` box as "brob:" + the type
    /// it holds); [] for a naked codestream or a box structure that does not add up.
    static func boxTypes(_ data: UnsafeBufferPointer<UInt8>) -> [String] {
        guard JXLDecoding.isContainer(data) else { return [] }
        var offset = 0
        var types: [String] = []
        while offset + 8 <= data.count, types.count < 256 {
            var size = Int(readBigEndian(data, offset, 4))
            var header = 8
            if size == 1 {
                guard offset + 16 <= data.count else { break }
                let large = readBigEndian(data, offset + 8, 8)
                guard large <= UInt64(data.count) else { break }
                size = Int(large)
                header = 16
            } else if size == 0 {
                size = data.count - offset
            }
            guard size >= header, offset + size <= data.count else { break }
            var type = String(decoding: data[(offset + 4)..<(offset + 8)], as: UTF8.self)
            if type == "brob", size >= header + 4 {
                type += ":" + String(decoding: data[(offset + header)..<(offset + header + 4)], as: UTF8.self)
            }
            types.append(type)
            offset += size
        }
        return types
    }

    /// What a person reading `info` wants to know of the boxes: metadata and JPEG reconstruction data.
    static func boxSummary(_ types: [String]) -> [String] {
        var parts: [String] = []
        if types.contains("Exif") { parts.append("Exif box") }
        if types.contains("brob:Exif") { parts.append("Exif box (Brotli)") }
        if types.contains("xml ") { parts.append("XMP box") }
        if types.contains("brob:xml ") { parts.append("XMP box (Brotli)") }
        if types.contains("jumb") || types.contains("brob:jumb") { parts.append("JUMBF box") }
        if types.contains("jbrd") { parts.append("JPEG reconstruction data (jbrd)") }
        if types.contains("jxli") { parts.append("frame index (jxli)") }
        return parts
    }

    private static func readBigEndian(_ data: UnsafeBufferPointer<UInt8>, _ offset: Int, _ count: Int) -> UInt64 {
        (0..<count).reduce(UInt64(0)) { $0 << 8 | UInt64(data[offset + $1]) }
    }
}
