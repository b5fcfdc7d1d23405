import PluginAPI
import PluginKit

/// Incremental decoding while bytes arrive (a progressive JPEG sharpens scan by scan, a baseline one fills in
/// from the top).
///
/// Each update re-decodes all the bytes received so far in libjpeg's buffered-image mode (see
/// `jpegc_decode_preview`): simple and stateless between calls, at the cost of redoing the earlier scans each
/// time — the host decides how often to ask. The final update is an ordinary decode, so it reports TRUNCATED
/// when the download ended early.
enum JPEGIncremental {
    /// What a session keeps between updates: only the options (the host passes all bytes again each time).
    /// `@unchecked Sendable` is not needed: the ABI promises one thread at a time per decoder.
    final class Session {
        var options: DecodeOptionsCopy

        init(_ options: DecodeOptionsCopy) { self.options = options }

        static func open(_ given: UnsafePointer<ip_decode_options>?) throws -> Session {
            Session(try IncrementalOptions.retain(given))
        }

        func update(_ bytes: UnsafeBufferPointer<UInt8>, isFinal: Bool, call: OpaquePointer?,
                    into target: UnsafeMutablePointer<ip_image>) throws -> ip_status {
            if bytes.isEmpty && !isFinal { throw PluginFailure(IP_STATUS_NEED_MORE, "no bytes yet") }
            let view = try IncrementalOptions.withRequest(options, data: bytes.baseAddress, size: bytes.count, call: call) {
                try DecodeRequestView($0)
            }
            let image = try JPEGDecoding.decode(view, preview: !isFinal)
            ABIStruct.write(image, to: target)
            return ip_status(IP_STATUS_OK)
        }
    }
}
