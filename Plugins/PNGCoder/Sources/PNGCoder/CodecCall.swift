import PNGCodec
import PluginAPI
import PluginKit

/// Calls a PNGCodec function with a message buffer and turns a non-OK status into a thrown `PluginFailure`.
///
/// The C side cannot throw; this is the one place where its status and message become a Swift error.
func codecCall(_ body: (ip_message) -> ip_status) throws {
    var buffer = [CChar](repeating: 0, count: 512)
    let status = buffer.withUnsafeMutableBufferPointer { text in
        body(ip_message(buffer: text.baseAddress, capacity: text.count))
    }
    guard status == ip_status(IP_STATUS_OK) else {
        let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        throw PluginFailure(status, text.isEmpty ? "libpng failed with status \(status)" : text)
    }
}

/// The C cancellation callback handed to PNGCodec: its context is the host's `ip_call` handle.
let cancellationCheck: pngc_cancel_fn = { context in
    Host.isCancelled(context.map { OpaquePointer($0) }) ? 1 : 0
}
