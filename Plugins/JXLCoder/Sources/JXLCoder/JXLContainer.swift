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

    private static func readBigEndian(_ data: UnsafeBufferPointer<UInt8>, _ offset: Int, _ count: Int) -> UInt64 {
        (0..<count).reduce(UInt64(0)) { $0 << 8 | UInt64(data[offset + $1]) }
    }
}
