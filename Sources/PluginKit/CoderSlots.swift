import PluginAPI

/// The C entry points behind the tables `CoderTable` builds: one set for every coder of the plugin.
///
/// The ABI 1.1 "2" slots (sniff2, probe2, decode2, frames_open2, incremental_open2, encode2) receive the coder's
/// table, through which they find its implementations; the handle slots (frames_next/close, incremental_update/
/// close) find their object through the handle.
enum CoderSlots {

    struct Implementation: Sendable {
        let sniffer: (any ImageSniffing.Type)?
        let decoder: (any PluginDecoding.Type)?
        let frames: (any FrameIterating.Type)?
        let incremental: (any IncrementalDecoding.Type)?
        let encoder: (any PluginEncoding.Type)?
        let transcoder: (any PluginTranscoding.Type)?
    }

    static let registry = ComponentRegistry<Implementation>(kind: "coder")

    private static func implementation(_ coder: UnsafePointer<ip_coder>?) throws -> Implementation {
        try registry.element(for: coder.map(UnsafeRawPointer.init))
    }

    // MARK: - Slots told their coder

    static let sniff: @convention(c) (UnsafePointer<ip_coder>?, UnsafePointer<UInt8>?, Int) -> ip_status = { coder, data, size in
        guard let sniffer = try? implementation(coder).sniffer else { return ip_status(IP_STATUS_UNSUPPORTED) }
        return sniffer.sniff(data, size)
    }

    static let probe: @convention(c) (UnsafePointer<ip_coder>?, UnsafePointer<ip_decode_request>?,
                                      UnsafeMutablePointer<ip_image_info>?, ip_message) -> ip_status = { coder, request, info, message in
        withStatus(message) {
            guard let decoder = try implementation(coder).decoder else { throw PluginFailure.unsupported("no decoder") }
            try InputLimit.check(request)
            try decoder.probe(request, into: info)
        }
    }

    static let decode: @convention(c) (UnsafePointer<ip_coder>?, UnsafePointer<ip_decode_request>?,
                                       UnsafeMutablePointer<ip_image>?, ip_message) -> ip_status = { coder, request, image, message in
        withStatus(message) {
            guard let decoder = try implementation(coder).decoder else { throw PluginFailure.unsupported("no decoder") }
            try InputLimit.check(request)
            try decoder.decode(request, into: image)
        }
    }

    static let framesOpen: @convention(c) (UnsafePointer<ip_coder>?, UnsafePointer<ip_decode_request>?,
                                           UnsafeMutablePointer<OpaquePointer?>?, ip_message) -> ip_status = {
        coder, request, iterator, message in
        withStatus(message) {
            guard let frames = try implementation(coder).frames else { throw PluginFailure.unsupported("no animation") }
            guard let request, let iterator else { throw PluginFailure.internalError("NULL request or iterator") }
            try InputLimit.check(request)
            iterator.pointee = OpaqueHandle.retain(FrameHandle(try frames.open(request)))
        }
    }

    static let incrementalOpen: @convention(c) (UnsafePointer<ip_coder>?, UnsafePointer<ip_decode_options>?,
                                                UnsafeMutablePointer<OpaquePointer?>?, ip_message) -> ip_status = {
        coder, options, decoder, message in
        withStatus(message) {
            guard let incremental = try implementation(coder).incremental else {
                throw PluginFailure.unsupported("no incremental decoding")
            }
            guard let decoder else { throw PluginFailure.internalError("NULL decoder pointer") }
            decoder.pointee = OpaqueHandle.retain(IncrementalHandle(try incremental.open(options)))
        }
    }

    static let encode: @convention(c) (UnsafePointer<ip_coder>?, UnsafePointer<UnsafePointer<ip_image>?>?, UInt32,
                                       UnsafePointer<ip_encode_options>?, OpaquePointer?, UnsafePointer<ip_byte_sink>?,
                                       ip_message) -> ip_status = { coder, frames, count, options, call, sink, message in
        withStatus(message) {
            guard let encoder = try implementation(coder).encoder else { throw PluginFailure.unsupported("no encoder") }
            try EncodeInput.settings(try EncodeInput.options(options)).refuseUnknown(known: encoder.settingKeys)
            try encoder.encode(frames: frames, count: count, options: options, call: call, sink: sink)
        }
    }

    static let transcode: @convention(c) (UnsafePointer<ip_coder>?, UnsafePointer<ip_transcode_request>?,
                                          UnsafePointer<ip_byte_sink>?, ip_message) -> ip_status = { coder, request, sink, message in
        withStatus(message) {
            guard let transcoder = try implementation(coder).transcoder else { throw PluginFailure.unsupported("no transcoder") }
            guard let request, let sink, request.pointee.data != nil || request.pointee.size == 0 else {
                throw PluginFailure.internalError("NULL transcode request, data or sink")
            }
            try transcoder.transcode(request, sink: sink)
        }
    }

    // MARK: - Handle slots (shared)

    /// The object behind a frames iterator handle.
    final class FrameHandle {
        let iterator: any FrameIterating
        init(_ iterator: any FrameIterating) { self.iterator = iterator }
    }

    /// The object behind an incremental decoder handle.
    final class IncrementalHandle {
        let decoder: any IncrementalDecoding
        init(_ decoder: any IncrementalDecoding) { self.decoder = decoder }
    }

    static let framesNext: @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutablePointer<ip_image>?, ip_message) -> ip_status = {
        iterator, call, frame, message in
        var result = ip_status(IP_STATUS_OK)
        let status = withStatus(message) {
            guard let iterator, let frame else { throw PluginFailure.internalError("NULL iterator or frame") }
            result = try OpaqueHandle.object(iterator, as: FrameHandle.self).iterator.next(call: call, into: frame)
        }
        return status == ip_status(IP_STATUS_OK) ? result : status
    }

    static let framesClose: @convention(c) (OpaquePointer?) -> Void = { iterator in
        OpaqueHandle.release(iterator, as: FrameHandle.self)
    }

    static let incrementalUpdate: @convention(c) (
        OpaquePointer?, UnsafePointer<UInt8>?, Int, Int32, OpaquePointer?, UnsafeMutablePointer<ip_image>?, ip_message
    ) -> ip_status = { decoder, data, size, isFinal, call, image, message in
        var result = ip_status(IP_STATUS_OK)
        let status = withStatus(message) {
            guard let decoder, let image else { throw PluginFailure.internalError("NULL decoder or image") }
            let bytes = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
            result = try OpaqueHandle.object(decoder, as: IncrementalHandle.self).decoder
                .update(bytes, isFinal: isFinal != 0, call: call, into: image)
        }
        return status == ip_status(IP_STATUS_OK) ? result : status
    }

    static let incrementalClose: @convention(c) (OpaquePointer?) -> Void = { decoder in
        OpaqueHandle.release(decoder, as: IncrementalHandle.self)
    }
}
