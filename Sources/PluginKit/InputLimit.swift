import PluginAPI

/// The request limit on input bytes (`ip_limits.max_input_bytes`), checked before a library sees the data.
public enum InputLimit {
    /// LIMIT_EXCEEDED ("N input bytes exceed the limit of M") when `count` bytes are more than the limit allows;
    /// a limit of 0 means none.
    public static func check(_ count: Int, _ limits: ip_limits) throws {
        let limit = limits.max_input_bytes
        if limit > 0, UInt64(count) > limit {
            throw PluginFailure.limitExceeded("\(count) input bytes exceed the limit of \(limit)")
        }
    }
}

extension DecodeRequestView {
    /// `InputLimit.check` for the request's bytes and limits.
    public func checkInputSize() throws {
        try InputLimit.check(data.count, options.limits)
    }
}
