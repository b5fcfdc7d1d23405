import PluginAPI
import PluginKit

/// Routing data for WebP: "RIFF" at 0 and "WEBP" at 8 as one masked 12-byte pattern (the RIFF size in between
/// is free), so no `sniff` is needed. (`nonisolated(unsafe)`: written once by its initialiser, then immutable.)
///
/// `IP_CODER_FAST_THUMBNAIL` but not `IP_CODER_SCALES`: a still image is shrunk on load by libwebp's scaler to a
/// size that covers the requested output (see `WebPScaling`); the host finishes the exact resize or crop.
/// `IP_CODER_THREAD_SAFE`: every call has its own libwebp objects; libwebp keeps no shared mutable state.
nonisolated(unsafe) let webpDescriptor = Descriptors.coder(
    id: "org.imagepipe.coder.webp/1", name: "WebP (libwebp)", version: "1.0.0", format: "webp",
    mimeTypes: ["image/webp"], extensions: ["webp"],
    capabilities: IP_CODER_CAN_DECODE | IP_CODER_CAN_ENCODE | IP_CODER_ANIMATED | IP_CODER_INCREMENTAL
        | IP_CODER_FAST_THUMBNAIL | IP_CODER_THREAD_SAFE,
    patterns: [MagicPattern(
        bytes: Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8),
        mask: [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF], relevance: 100)])

/// The coder's vtable. Each slot is a non-capturing C closure that enters Swift through `withStatus`.
nonisolated(unsafe) let webpCoder = StaticStorage.value(ip_coder(
    struct_size: UInt32(MemoryLayout<ip_coder>.size),
    descriptor: webpDescriptor,
    sniff: nil,
    probe: { request, info, message in
        withStatus(message) { try WebPDecoding.probe(request, info) }
    },
    decode: { request, image, message in
        withStatus(message) { try WebPDecoding.decode(request, image) }
    },
    frames_open: { request, iterator, message in
        withStatus(message) { try WebPFrameIterator.open(request, iterator) }
    },
    frames_next: { iterator, call, frame, message in
        var result = ip_status(IP_STATUS_OK)
        let status = withStatus(message) { result = try WebPFrameIterator.from(iterator).next(call: call, into: frame) }
        return status == ip_status(IP_STATUS_OK) ? result : status
    },
    frames_close: { iterator in WebPFrameIterator.close(iterator) },
    incremental_open: { options, decoder, message in
        withStatus(message) { try WebPIncrementalSession.open(options, decoder) }
    },
    incremental_update: { decoder, data, size, isFinal, call, image, message in
        var result = ip_status(IP_STATUS_OK)
        let status = withStatus(message) {
            result = try WebPIncrementalSession.from(decoder).update(data, size, isFinal: isFinal != 0, call: call, into: image)
        }
        return status == ip_status(IP_STATUS_OK) ? result : status
    },
    incremental_close: { decoder in WebPIncrementalSession.close(decoder) },
    encode: { frames, frameCount, options, call, sink, message in
        withStatus(message) {
            try WebPEncoding.encode(frames: frames, count: frameCount, options: options, call: call, sink: sink)
        }
    }))
