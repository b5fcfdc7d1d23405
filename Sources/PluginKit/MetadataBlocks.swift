import PluginAPI

/// The Exif and XMP blocks a coder found in its container, handed to a probe's answer as found (ABI 1.1
/// `ip_image_info.exif` / `.xmp`): the host parses them, with its one bounds-checked reader.
public struct MetadataBlocks: Sendable, Equatable {
    /// TIFF-structured, from the byte-order mark (a container's own prefix removed).
    public var exif: [UInt8]?
    public var xmp: [UInt8]?

    /// Blocks above this are not handed over (a real Exif block is at most 64 KiB in JPEG; XMP may be larger, but a
    /// summary needs none of a multi-megabyte packet's bulk).
    public static let limit = 1 << 20

    public init(exif: [UInt8]? = nil, xmp: [UInt8]? = nil) {
        self.exif = exif.flatMap { Self.bareExif($0) }
        self.xmp = xmp.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The block from its byte-order mark: drops a leading "Exif\0\0" (JPEG, some PNG and WebP writers) or the
    /// four-byte offset HEIF puts first, and refuses what does not start as TIFF does.
    static func bareExif(_ block: [UInt8]) -> [UInt8]? {
        var bytes = block[...]
        if bytes.starts(with: Array("Exif\0\0".utf8)) { bytes = bytes.dropFirst(6) }
        func isTIFF(_ b: ArraySlice<UInt8>) -> Bool {
            b.count >= 8 && (b.starts(with: [0x49, 0x49, 0x2A, 0x00]) || b.starts(with: [0x4D, 0x4D, 0x00, 0x2A]))
        }
        if !isTIFF(bytes), bytes.count >= 4 {
            let offset = Int(bytes[bytes.startIndex]) << 24 | Int(bytes[bytes.startIndex + 1]) << 16
                | Int(bytes[bytes.startIndex + 2]) << 8 | Int(bytes[bytes.startIndex + 3])
            if offset <= bytes.count - 4 { bytes = bytes.dropFirst(4 + offset) }
            if bytes.starts(with: Array("Exif\0\0".utf8)) { bytes = bytes.dropFirst(6) }
        }
        return isTIFF(bytes) ? Array(bytes) : nil
    }

    /// Copies the blocks into host memory (`alloc_bytes`) and points the answer at them; a host that refuses or
    /// predates them gets none (metadata is never worth failing a probe).
    public func write(into info: inout ip_image_info, call: OpaquePointer?) {
        if let exif, exif.count <= Self.limit, let buffer = Host.allocateBytes(call, count: exif.count) {
            buffer.update(from: exif, count: exif.count)
            info.exif = buffer
            info.exif_size = UInt32(exif.count)
        }
        if let xmp, xmp.count <= Self.limit, let buffer = Host.allocateBytes(call, count: xmp.count) {
            buffer.update(from: xmp, count: xmp.count)
            info.xmp = buffer
            info.xmp_size = UInt32(xmp.count)
        }
    }
}
