import PluginAPI

/// The decode options an incremental decoder keeps between `incremental_update` calls, and the request each
/// update decodes with.
///
/// `incremental_open` borrows the host's options for that call only, so every incremental coder copies them; the
/// copy and the per-update request were written the same way in several plugins before they moved here.
public enum IncrementalOptions {
    /// The host's options copied within its `struct_size` (zero defaults for fields an older host lacks), with the
    /// borrowed strings `source_url` and `password` cleared: they are valid only during `incremental_open`.
    public static func retain(_ given: UnsafePointer<ip_decode_options>?) -> ip_decode_options {
        var options = ip_decode_options()
        options.struct_size = UInt32(MemoryLayout<ip_decode_options>.size)
        if let given { options = ABIStruct.read(given, defaults: options) }
        options.source_url = nil
        options.password = nil
        return options
    }

    /// Runs `body` with a decode request over the bytes so far and the retained `options`, shaped as `decode`
    /// receives it (so the coder's `DecodeRequestView` paths serve previews too).
    public static func withRequest<Result>(
        _ options: ip_decode_options, data: UnsafePointer<UInt8>?, size: Int, call: OpaquePointer?,
        _ body: (UnsafePointer<ip_decode_request>) throws -> Result
    ) rethrows -> Result {
        var options = options
        return try withUnsafePointer(to: &options) { options in
            var request = ip_decode_request(
                struct_size: UInt32(MemoryLayout<ip_decode_request>.size), data: data, size: size,
                options: options, call: call)
            return try withUnsafePointer(to: &request) { try body($0) }
        }
    }
}
