import CJXL
import PluginAPI
import PluginKit

/// Progressive previews while a JPEG XL arrives (the incremental slot): each update reads the bytes so far with a
/// fresh libjxl decoder whose input stays open, and flushes what its progressive passes have drawn
/// (`JXLDecoder.preview`); NEED_MORE before the header, colour and first group are in. The last update decodes
/// the whole file exactly as `decode` does (so the final image is identical to a one-shot decode).
///
/// A fresh decoder per update keeps no libjxl state between calls (each update may run on another thread, and a
/// decoder that failed on partial bytes cannot be resumed); the cost is re-reading the prefix, which libjxl does at
/// its header-skipping speed. An animation previews its first frame; its final image is frame 0.
final class JXLIncrementalSession {
    private let options: DecodeOptionsCopy
    private var received = 0

    private init(_ options: DecodeOptionsCopy) { self.options = options }

    static func open(_ options: UnsafePointer<ip_decode_options>?) throws -> JXLIncrementalSession {
        JXLIncrementalSession(try IncrementalOptions.retain(options))
    }

    func update(_ given: UnsafeBufferPointer<UInt8>, isFinal: Bool, call: OpaquePointer?,
                into target: UnsafeMutablePointer<ip_image>) throws -> ip_status {
        try Host.checkCancellation(call)
        guard given.count >= received else {
            throw PluginFailure.invalidData("incremental data shrank from \(received) to \(given.count) bytes")
        }
        received = given.count
        try InputLimit.check(given.count, options.limits)
        if isFinal {
            try IncrementalOptions.withRequest(options, data: given.baseAddress, size: given.count, call: call) { request in
                try JXLDecoding.decode(request, into: target)
            }
            return ip_status(IP_STATUS_OK)
        }
        guard given.count >= 12 else { return ip_status(IP_STATUS_NEED_MORE) }
        let decoder: JXLDecoder
        do {
            decoder = try JXLDecoder(given, limits: options.limits, threads: options.threads, reading: .preview)
        } catch let failure as PluginFailure where failure.status == ip_status(IP_STATUS_NEED_MORE) {
            return ip_status(IP_STATUS_NEED_MORE)
        }
        guard let preview = try decoder.preview(call: call) else { return ip_status(IP_STATUS_NEED_MORE) }
        ABIStruct.write(preview, to: target)
        return ip_status(IP_STATUS_OK)
    }
}
