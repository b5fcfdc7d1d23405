import PluginAPI

/// Calls into a plugin's own C glue (code that must stay in C, such as the setjmp/longjmp error handling of
/// libpng and libjpeg): the glue returns an `ip_status` and writes its message into a buffer.
///
/// The C side cannot throw; this is where its status and message become a Swift error, the same way for every
/// plugin that has glue.
public enum CodecCall {
    /// Runs `body` with a 512-byte message buffer; a non-OK status throws a `PluginFailure` with the glue's
    /// message, or "<library> failed with status N" when it wrote none.
    public static func run(library: String, _ body: (ip_message) -> ip_status) throws {
        var buffer = [CChar](repeating: 0, count: 512)
        let status = buffer.withUnsafeMutableBufferPointer { text in
            body(ip_message(buffer: text.baseAddress, capacity: text.count))
        }
        guard status == ip_status(IP_STATUS_OK) else {
            let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw PluginFailure(status, text.isEmpty ? "\(library) failed with status \(status)" : text)
        }
    }

    /// A C callback `int32_t (*)(void *context)` for glue that polls cancellation: the context is the host's
    /// `ip_call` handle, and the answer is 1 once that call is cancelled.
    public static let cancellationCallback: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { context in
        Host.isCancelled(context.map { OpaquePointer($0) }) ? 1 : 0
    }
}
