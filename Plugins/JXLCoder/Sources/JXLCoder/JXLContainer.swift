import PluginKit

/// The codestream inside an ISO BMFF JPEG XL container, for the one thing libjxl 0.7 cannot read itself: a `jxlc`
/// box whose size is given as a 64-bit "largesize" (size field 1), which ISO/IEC 18181-2 allows and libjxl 0.7
/// reports as truncated. Other containers are given to libjxl whole (it reads their boxes, Exif and jbrd included).
enum JXLContainer {
    /// A container's top-level boxes in order, each with its payload's range in `data`, up to the first box whose
    /// size does not add up (`complete` false then); nil for a naked codestream. The one reading of box headers
    /// (32-bit size, or 1 and a 64-bit largesize, or 0 for "to the end") that both uses below share.
    static func boxes(_ data: UnsafeBufferPointer<UInt8>) -> (boxes: [(type: String, payload: Range<Int>)], complete: Bool)? {
        guard JXLDecoding.isContainer(data) else { return nil }
        var offset = 0
        var boxes: [(type: String, payload: Range<Int>)] = []
        while offset + 8 <= data.count {
            var size = Int(readBigEndian(data, offset, 4))
            var header = 8
            if size == 1 {
                guard offset + 16 <= data.count else { return (boxes, false) }
                let large = readBigEndian(data, offset + 8, 8)
                guard large <= UInt64(data.count) else { return (boxes, false) }
                size = Int(large)
                header = 16
            } else if size == 0 {
                size = data.count - offset  // the box runs to the end of the file
            }
            guard size >= header, offset + size <= data.count else { return (boxes, false) }
            boxes.append((String(decoding: data[(offset + 4)..<(offset + 8)], as: UTF8.self), (offset + header)..<(offset + size)))
            offset += size
        }
        return (boxes, true)
    }

    /// The codestream of a container: the `jxlc` box's payload, or the `jxlp` parts concatenated (each after its
    /// 4-byte index); nil when `data` is not a container or holds neither (or its boxes break off before one).
    static func codestream(_ data: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let (boxes, complete) = boxes(data) else { return nil }
        if let whole = boxes.first(where: { $0.type == "jxlc" }) { return Array(data[whole.payload]) }
        let parts = boxes.filter { $0.type == "jxlp" && $0.payload.count >= 4 }
        guard complete, !parts.isEmpty else { return nil }
        return parts.flatMap { data[($0.payload.lowerBound + 4)..<$0.payload.upperBound] }
    }

    /// The types of a container's first 256 top-level boxes, in order (a Brotli-compressed `brob` box as "brob:" +
    /// the type it holds); [] for a naked codestream.
    static func boxTypes(_ data: UnsafeBufferPointer<UInt8>) -> [String] {
        guard let (boxes, _) = boxes(data) else { return [] }
        return boxes.prefix(256).map { box in
            guard box.type == "brob", box.payload.count >= 4 else { return box.type }
            return "brob:" + String(decoding: data[box.payload.lowerBound..<(box.payload.lowerBound + 4)], as: UTF8.self)
        }
    }

    /// The first `Exif` box (its four-byte TIFF-header offset is dropped by `MetadataBlocks`) and the first `xml `
    /// box of a container, for `info`; Brotli-compressed (`brob`) ones through libjxl (`JXLMetadataBoxes`).
    static func metadata(_ data: UnsafeBufferPointer<UInt8>) -> MetadataBlocks {
        guard let (boxes, _) = boxes(data) else { return MetadataBlocks() }
        func payload(_ type: String) -> [UInt8]? {
            boxes.prefix(256).first { $0.type == type && $0.payload.count <= MetadataBlocks.limit }.map { Array(data[$0.payload]) }
        }
        let plain = MetadataBlocks(exif: payload("Exif"), xmp: payload("xml "))
        // Brotli-compressed boxes are expanded by libjxl when a block is not found plain.
        let compressed = boxes.prefix(256).contains { $0.type == "brob" }
        guard compressed, plain.exif == nil || plain.xmp == nil else { return plain }
        let expanded = JXLMetadataBoxes.read(data)
        return MetadataBlocks(exif: plain.exif ?? expanded.exif, xmp: plain.xmp ?? expanded.xmp)
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
