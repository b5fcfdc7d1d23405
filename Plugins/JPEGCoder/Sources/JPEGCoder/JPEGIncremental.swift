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
    }

    static func open(_ given: UnsafePointer<ip_decode_options>?, _ decoder: UnsafeMutablePointer<OpaquePointer?>?) throws {
        guard let decoder else { throw PluginFailure.internalError("NULL decoder pointer") }
        // source_url and password are dropped: borrowed for open only, and JPEG needs neither.
        decoder.pointee = OpaqueHandle.retain(Session(IncrementalOptions.retain(given)))
    }

    static func update(
        _ decoder: OpaquePointer?, data: UnsafePointer<UInt8>?, size: Int, isFinal: Bool, call: OpaquePointer?,
        into target: UnsafeMutablePointer<ip_image>?
    ) throws {
        guard let decoder, let target else { throw PluginFailure.internalError("NULL decoder or image") }
        let session = OpaqueHandle.object(decoder, as: Session.self)
        if size == 0 && !isFinal { throw PluginFailure(IP_STATUS_NEED_MORE, "no bytes yet") }
        let view = try IncrementalOptions.withRequest(session.options, data: data, size: size, call: call) {
            try DecodeRequestView($0)
        }
        let image = try JPEGDecoding.decode(view, preview: !isFinal)
        ABIStruct.write(image, to: target)
    }

    static func close(_ decoder: OpaquePointer?) {
        OpaqueHandle.release(decoder, as: Session.self)
    }
}
