import PluginAPI

/// Read-only conveniences over the C decode request, reading only the fields its struct_size covers.
public struct DecodeRequestView {
    public let data: UnsafeBufferPointer<UInt8>
    public let options: DecodeOptionsCopy
    public let call: OpaquePointer?

    public init(_ request: UnsafePointer<ip_decode_request>?) throws {
        guard let request else { throw PluginFailure.internalError("NULL decode request") }
        let raw = request.pointee
        data = UnsafeBufferPointer(start: raw.data, count: raw.data == nil ? 0 : raw.size)
        options = try DecodeOptionsCopy(raw.options)
        call = raw.call
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
