#if canImport(Glibc)
import Glibc
#endif
import PluginAPI

/// Read-only conveniences over the C decode request, reading only the fields its struct_size covers.
public struct DecodeRequestView {
    public let data: UnsafeBufferPointer<UInt8>
    public let options: DecodeOptionsCopy
    public let call: OpaquePointer?
    /// The source read by ranges (IP_DECODE_EXTENSION_SOURCE), when the host sent it to a coder that lists it:
    /// `data` is then only the source's first bytes. Valid for this call only (it is not in `options`, a copy that
    /// may outlive the call).
    public let ranged: ip_decode_source?

    public init(_ request: UnsafePointer<ip_decode_request>?) throws {
        guard let request else { throw PluginFailure.internalError("NULL decode request") }
        let raw = request.pointee
        let prefix = raw.data == nil ? 0 : raw.size
        data = UnsafeBufferPointer(start: raw.data, count: prefix)
        options = try DecodeOptionsCopy(raw.options)
        call = raw.call
        ranged = try raw.options.flatMap { try Self.rangedSource(in: $0, prefix: prefix) }
    }

    /// The whole source's size: the ranged source's, or that of `data`.
    public var sourceSize: UInt64 { ranged?.size ?? UInt64(data.count) }

    /// Copies up to `buffer.count` bytes of the source at `offset` (from `data` or through the ranged reader);
    /// returns the count, 0 at the end. Throws IO when the reader fails.
    public func read(at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if let ranged, let readAt = ranged.read_at {
            let count = readAt(ranged.context, offset, buffer.baseAddress, buffer.count)
            guard count >= 0, count <= buffer.count else { throw PluginFailure.io("cannot read the source at byte \(offset)") }
            return Int(count)
        }
        guard offset < UInt64(data.count) else { return 0 }
        let count = min(buffer.count, data.count - Int(offset))
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(data)[Int(offset)..<Int(offset) + count]))
        return count
    }

    /// The source extension on the options' chain, checked: a reader, and a size no smaller than the prefix.
    private static func rangedSource(in options: UnsafePointer<ip_decode_options>, prefix: Int) throws -> ip_decode_source? {
        let raw = try ABIStruct.read(options, named: "ip_decode_options")
        var next = raw.extensions
        var seen = 0
        while let head = next, seen < 64 {
            seen += 1
            if let id = head.pointee.id, strcmp(id, IP_DECODE_EXTENSION_SOURCE) == 0,
               Int(head.pointee.struct_size) >= MemoryLayout<ip_decode_source>.size {
                let value = UnsafeRawPointer(head).assumingMemoryBound(to: ip_decode_source.self).pointee
                guard value.read_at != nil, value.size >= UInt64(prefix) else {
                    throw PluginFailure.internalError("the source extension has no reader or is shorter than its prefix")
                }
                return value
            }
            next = head.pointee.next
        }
        return nil
    }

    public func has(_ flag: UInt32) -> Bool { options.flags & flag != 0 }

    /// The requested output box, or nil for intrinsic size.
    public var thumbnailSize: (width: Int, height: Int)? {
        options.thumbnail_width == 0 && options.thumbnail_height == 0
            ? nil : (Int(options.thumbnail_width), Int(options.thumbnail_height))
    }

    /// Throws LIMIT_EXCEEDED when an output of width x height would break the request's limits.
    public func checkLimits(width: Int, height: Int) throws {
        let limits = options.limits
        if limits.max_dimension > 0, width > Int(limits.max_dimension) || height > Int(limits.max_dimension) {
            throw PluginFailure.limitExceeded("\(width)x\(height) exceeds the dimension limit of \(limits.max_dimension)")
        }
        if limits.max_pixels > 0, UInt64(width) * UInt64(height) > limits.max_pixels {
            throw PluginFailure.limitExceeded("\(width)x\(height) exceeds the pixel limit of \(limits.max_pixels)")
        }
    }
}

/// Fills an ip_image_info's format and details strings.
public func setInfoStrings(_ info: inout ip_image_info, format: String, details: String) {
    withUnsafeMutableBytes(of: &info.format) { copyCString(format, into: $0) }
    withUnsafeMutableBytes(of: &info.details) { copyCString(details, into: $0) }
}

private func copyCString(_ text: String, into buffer: UnsafeMutableRawBufferPointer) {
    let message = ip_message(buffer: buffer.baseAddress?.assumingMemoryBound(to: CChar.self), capacity: buffer.count)
    writeMessage(message, text)
}
