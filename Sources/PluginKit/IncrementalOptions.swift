import PluginAPI

/// The decode options an incremental decoder keeps between `incremental_update` calls, and the request each
/// update decodes with.
///
/// `incremental_open` borrows the host's options (and all they point to) for that call only, so every incremental
/// coder copies them; the copy and the per-update request were written the same way in several plugins before
/// they moved here.
public enum IncrementalOptions {
    /// The host's options copied (`DecodeOptionsCopy`: within each struct_size, extensions included).
    public static func retain(_ given: UnsafePointer<ip_decode_options>?) throws -> DecodeOptionsCopy {
        try DecodeOptionsCopy(given)
    }

    /// Runs `body` with a decode request over the bytes so far and the retained `options`, shaped as `decode`
    /// receives it (so the coder's `DecodeRequestView` paths serve previews too).
    public static func withRequest<Result>(
        _ options: DecodeOptionsCopy, data: UnsafePointer<UInt8>?, size: Int, call: OpaquePointer?,
        _ body: (UnsafePointer<ip_decode_request>) throws -> Result
    ) rethrows -> Result {
        try options.withABI { options in
            var request = ip_decode_request(
                struct_size: UInt32(MemoryLayout<ip_decode_request>.size), data: data, size: size,
                options: options, call: call)
            return try withUnsafePointer(to: &request) { try body($0) }
        }
    }
}
