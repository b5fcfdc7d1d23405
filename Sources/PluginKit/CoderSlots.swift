import PluginAPI

/// The C entry points behind the tables `CoderTable` builds.
///
/// The slots that receive a handle (frames_next/close, incremental_update/close) find their object through it and
/// are shared by every coder; the others (sniff, probe, decode, frames_open, incremental_open, encode) exist once
/// per coder number, because a C function pointer cannot carry which coder it belongs to.
enum CoderSlots {

    struct Implementation: Sendable {
        let sniffer: (any ImageSniffing.Type)?
        let decoder: (any PluginDecoding.Type)?
        let frames: (any FrameIterating.Type)?
        let incremental: (any IncrementalDecoding.Type)?
        let encoder: (any PluginEncoding.Type)?
    }

    static let registry = SlotRegistry<Implementation>(kind: "coders", capacity: 4)

    private static func implementation(_ index: Int) -> Implementation { registry[index] }

    /// The numbered entry points of coder `index`, in an ip_coder (handle slots and descriptor left empty).
    static func entryPoints(_ index: Int) -> ip_coder {
        switch index {
        case 0:
            return ip_coder(
                struct_size: 0, descriptor: nil,
                sniff: { CoderSlots.sniff(0, $0, $1) },
                probe: { CoderSlots.probe(0, $0, $1, $2) },
                decode: { CoderSlots.decode(0, $0, $1, $2) },
                frames_open: { CoderSlots.framesOpen(0, $0, $1, $2) }, frames_next: nil, frames_close: nil,
                incremental_open: { CoderSlots.incrementalOpen(0, $0, $1, $2) }, incremental_update: nil, incremental_close: nil,
                encode: { CoderSlots.encode(0, $0, $1, $2, $3, $4, $5) })
        case 1:
            return ip_coder(
                struct_size: 0, descriptor: nil,
                sniff: { CoderSlots.sniff(1, $0, $1) },
                probe: { CoderSlots.probe(1, $0, $1, $2) },
                decode: { CoderSlots.decode(1, $0, $1, $2) },
                frames_open: { CoderSlots.framesOpen(1, $0, $1, $2) }, frames_next: nil, frames_close: nil,
                incremental_open: { CoderSlots.incrementalOpen(1, $0, $1, $2) }, incremental_update: nil, incremental_close: nil,
                encode: { CoderSlots.encode(1, $0, $1, $2, $3, $4, $5) })
        case 2:
            return ip_coder(
                struct_size: 0, descriptor: nil,
                sniff: { CoderSlots.sniff(2, $0, $1) },
                probe: { CoderSlots.probe(2, $0, $1, $2) },
                decode: { CoderSlots.decode(2, $0, $1, $2) },
                frames_open: { CoderSlots.framesOpen(2, $0, $1, $2) }, frames_next: nil, frames_close: nil,
                incremental_open: { CoderSlots.incrementalOpen(2, $0, $1, $2) }, incremental_update: nil, incremental_close: nil,
                encode: { CoderSlots.encode(2, $0, $1, $2, $3, $4, $5) })
        case 3:
            return ip_coder(
                struct_size: 0, descriptor: nil,
                sniff: { CoderSlots.sniff(3, $0, $1) },
                probe: { CoderSlots.probe(3, $0, $1, $2) },
                decode: { CoderSlots.decode(3, $0, $1, $2) },
                frames_open: { CoderSlots.framesOpen(3, $0, $1, $2) }, frames_next: nil, frames_close: nil,
                incremental_open: { CoderSlots.incrementalOpen(3, $0, $1, $2) }, incremental_update: nil, incremental_close: nil,
                encode: { CoderSlots.encode(3, $0, $1, $2, $3, $4, $5) })
        default:
            preconditionFailure("coder number \(index) has no entry points")
        }
    }

    // MARK: - Numbered slots

    private static func sniff(_ index: Int, _ data: UnsafePointer<UInt8>?, _ size: Int) -> ip_status {
        guard let sniffer = implementation(index).sniffer else { return ip_status(IP_STATUS_UNSUPPORTED) }
        return sniffer.sniff(data, size)
    }

    private static func probe(_ index: Int, _ request: UnsafePointer<ip_decode_request>?,
                              _ info: UnsafeMutablePointer<ip_image_info>?, _ message: ip_message) -> ip_status {
        withStatus(message) {
            guard let decoder = implementation(index).decoder else { throw PluginFailure.unsupported("no decoder") }
            try InputLimit.check(request)
            try decoder.probe(request, into: info)
        }
    }

    private static func decode(_ index: Int, _ request: UnsafePointer<ip_decode_request>?,
                               _ image: UnsafeMutablePointer<ip_image>?, _ message: ip_message) -> ip_status {
        withStatus(message) {
            guard let decoder = implementation(index).decoder else { throw PluginFailure.unsupported("no decoder") }
            try InputLimit.check(request)
            try decoder.decode(request, into: image)
        }
    }

    private static func framesOpen(_ index: Int, _ request: UnsafePointer<ip_decode_request>?,
                                   _ iterator: UnsafeMutablePointer<OpaquePointer?>?, _ message: ip_message) -> ip_status {
        withStatus(message) {
            guard let frames = implementation(index).frames else { throw PluginFailure.unsupported("no animation") }
            guard let request, let iterator else { throw PluginFailure.internalError("NULL request or iterator") }
            try InputLimit.check(request)
            iterator.pointee = OpaqueHandle.retain(FrameHandle(try frames.open(request)))
        }
    }

    private static func incrementalOpen(_ index: Int, _ options: UnsafePointer<ip_decode_options>?,
                                        _ decoder: UnsafeMutablePointer<OpaquePointer?>?, _ message: ip_message) -> ip_status {
        withStatus(message) {
            guard let incremental = implementation(index).incremental else {
                throw PluginFailure.unsupported("no incremental decoding")
            }
            guard let decoder else { throw PluginFailure.internalError("NULL decoder pointer") }
            decoder.pointee = OpaqueHandle.retain(IncrementalHandle(try incremental.open(options)))
        }
    }

    private static func encode(_ index: Int, _ frames: UnsafePointer<UnsafePointer<ip_image>?>?, _ count: UInt32,
                               _ options: UnsafePointer<ip_encode_options>?, _ call: OpaquePointer?,
                               _ sink: UnsafePointer<ip_byte_sink>?, _ message: ip_message) -> ip_status {
        withStatus(message) {
            guard let encoder = implementation(index).encoder else { throw PluginFailure.unsupported("no encoder") }
            try encoder.encode(frames: frames, count: count, options: options, call: call, sink: sink)
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
