import PluginAPI

/// The host's decode options copied into plain Swift values: the fields its `struct_size` covers, the limits its
/// pointer reaches (within their own `struct_size`), and the named extensions this kit knows (tint, password).
///
/// A copy, not a view, because the C options point to memory borrowed for one call, while incremental decoders
/// keep their options between calls. Scalar fields keep the C names, so plugin code reads as the header does.
public struct DecodeOptionsCopy: Sendable {
    public var thumbnail_width: UInt32 = 0
    public var thumbnail_height: UInt32 = 0
    public var scale_mode: ip_scale_mode = ip_scale_mode(IP_SCALE_FIT)
    public var flags: UInt32 = 0
    public var page_index: UInt32 = 0
    public var frame_index: UInt32 = 0
    public var threads: UInt32 = 0
    /// All zero (no limits) when the host gave none.
    public var limits = ip_limits()
    /// `source_url`, copied.
    public var sourceURL: String?
    /// The tint extension (IP_DECODE_EXTENSION_TINT): 0xRRGGBBAA and whether it is a template tint.
    public var tint: (rgba: UInt32, template: Bool)?
    /// The password extension (IP_DECODE_EXTENSION_PASSWORD).
    public var password: String?

    public init() {}

    /// Reads the host's options (and its limits) under the one rule for versioned structs; nil gives the defaults.
    public init(_ given: UnsafePointer<ip_decode_options>?) throws {
        guard let given else { return }
        let raw = try ABIStruct.read(given, named: "ip_decode_options")
        thumbnail_width = raw.thumbnail_width
        thumbnail_height = raw.thumbnail_height
        scale_mode = raw.scale_mode
        flags = raw.flags
        page_index = raw.page_index
        frame_index = raw.frame_index
        threads = raw.threads
        if let pointer = raw.limits { limits = try ABIStruct.read(pointer, named: "ip_limits") }
        sourceURL = raw.source_url.map { String(cString: $0) }
        var next = raw.extensions
        var seen = 0
        while let head = next, seen < 64 {
            seen += 1
            let id = head.pointee.id.map { String(cString: $0) } ?? ""
            let size = Int(head.pointee.struct_size)
            if id == IP_DECODE_EXTENSION_TINT, size >= MemoryLayout<ip_decode_tint>.size {
                let value = UnsafeRawPointer(head).assumingMemoryBound(to: ip_decode_tint.self).pointee
                tint = (value.rgba, value.flags & UInt32(IP_TINT_TEMPLATE) != 0)
            } else if id == IP_DECODE_EXTENSION_PASSWORD, size >= MemoryLayout<ip_decode_password>.size {
                let value = UnsafeRawPointer(head).assumingMemoryBound(to: ip_decode_password.self).pointee
                password = value.password.map { String(cString: $0) }
            }
            next = head.pointee.next
        }
    }

    public func has(_ flag: UInt32) -> Bool { flags & flag != 0 }

    /// Runs `body` with C options equal to these (extensions included), valid for the call.
    public func withABI<Result>(_ body: (UnsafePointer<ip_decode_options>) throws -> Result) rethrows -> Result {
        var limits = self.limits
        limits.struct_size = UInt32(MemoryLayout<ip_limits>.size)
        return try withUnsafePointer(to: &limits) { limits in
            try withOptionalCString(sourceURL) { url in
                try withOptionalCString(password) { passwordText in
                    try withTintExtension { tintHead in
                        var passwordValue = ip_decode_password(
                            head: ip_decode_extension(struct_size: UInt32(MemoryLayout<ip_decode_password>.size),
                                                      id: nil, next: tintHead),
                            password: passwordText)
                        return try IP_DECODE_EXTENSION_PASSWORD.withCString { passwordID in
                            passwordValue.head.id = passwordID
                            return try withUnsafePointer(to: &passwordValue) { passwordPointer in
                                let extensions = password == nil
                                    ? tintHead : UnsafeRawPointer(passwordPointer).assumingMemoryBound(to: ip_decode_extension.self)
                                var options = ip_decode_options(
                                    struct_size: UInt32(MemoryLayout<ip_decode_options>.size),
                                    thumbnail_width: thumbnail_width, thumbnail_height: thumbnail_height,
                                    scale_mode: scale_mode, flags: flags, page_index: page_index, frame_index: frame_index,
                                    threads: threads, limits: limits, source_url: url, extensions: extensions)
                                return try withUnsafePointer(to: &options) { try body($0) }
                            }
                        }
                    }
                }
            }
        }
    }

    private func withTintExtension<Result>(_ body: (UnsafePointer<ip_decode_extension>?) throws -> Result) rethrows -> Result {
        guard let tint else { return try body(nil) }
        return try IP_DECODE_EXTENSION_TINT.withCString { id in
            var value = ip_decode_tint(
                head: ip_decode_extension(struct_size: UInt32(MemoryLayout<ip_decode_tint>.size), id: id, next: nil),
                rgba: tint.rgba, flags: tint.template ? UInt32(IP_TINT_TEMPLATE) : 0)
            return try withUnsafePointer(to: &value) {
                try body(UnsafeRawPointer($0).assumingMemoryBound(to: ip_decode_extension.self))
            }
        }
    }
}

func withOptionalCString<Result>(_ text: String?, _ body: (UnsafePointer<CChar>?) throws -> Result) rethrows -> Result {
    guard let text else { return try body(nil) }
    return try text.withCString { try body($0) }
}
