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

    /// `check` for a decode request as it arrives, reading only its size and limits (the kit runs this before every
    /// probe, decode and frames_open, which then read the whole request once, through `DecodeRequestView`).
    static func check(_ request: UnsafePointer<ip_decode_request>?) throws {
        guard let request else { throw PluginFailure.internalError("NULL decode request") }
        let raw = request.pointee
        guard let options = raw.options else { return }
        let given = try ABIStruct.read(options, named: "ip_decode_options")
        guard let limits = given.limits else { return }
        try check(raw.data == nil ? 0 : raw.size, try ABIStruct.read(limits, named: "ip_limits"))
    }
}

extension DecodeRequestView {
    /// `InputLimit.check` for the request's bytes and limits.
    public func checkInputSize() throws {
        try InputLimit.check(data.count, options.limits)
    }
}
