import PluginAPI
import PluginKit

/// Routing data for GIF: the two signatures are unambiguous, so no `sniff` is needed.
/// (`nonisolated(unsafe)`: written once by its initialiser, then immutable C data.)
///
/// Not `IP_CODER_SCALES`: GIF has no reduced-size decode, so the host resamples.
/// `IP_CODER_THREAD_SAFE`: every call opens its own giflib handle over its own bytes and keeps no shared state
/// (the encoder's quantiser is the plugin's own, not giflib's `GifQuantizeBuffer`, which keeps a static).
nonisolated(unsafe) let gifDescriptor = Descriptors.coder(
    id: "org.imagepipe.coder.gif/1", name: "GIF (giflib)", version: "1.0.0", format: "gif",
    mimeTypes: ["image/gif"], extensions: ["gif"],
    capabilities: IP_CODER_CAN_DECODE | IP_CODER_CAN_ENCODE | IP_CODER_ANIMATED | IP_CODER_THREAD_SAFE,
    patterns: [MagicPattern(ascii: "GIF87a", relevance: 100), MagicPattern(ascii: "GIF89a", relevance: 100)])

/// The coder's vtable. Each slot is a non-capturing C closure that enters Swift through `withStatus`.
nonisolated(unsafe) let gifCoder = StaticStorage.value(ip_coder(
    struct_size: UInt32(MemoryLayout<ip_coder>.size),
    descriptor: gifDescriptor,
    sniff: nil,
    probe: { request, info, message in
        withStatus(message) { try GIFDecoding.probe(request, info) }
    },
    decode: { request, image, message in
        withStatus(message) { try GIFDecoding.decode(request, image) }
    },
    frames_open: { request, iterator, message in
        withStatus(message) { try GIFFrameIterator.open(request, iterator) }
    },
    frames_next: { iterator, call, frame, message in
        var result = ip_status(IP_STATUS_OK)
        let status = withStatus(message) { result = try GIFFrameIterator.from(iterator).next(call: call, into: frame) }
        return status == ip_status(IP_STATUS_OK) ? result : status
    },
    frames_close: { iterator in GIFFrameIterator.close(iterator) },
    incremental_open: nil, incremental_update: nil, incremental_close: nil,
    encode: { frames, frameCount, options, call, sink, message in
        withStatus(message) {
            try GIFEncoding.encode(frames: frames, count: frameCount, options: options, call: call, sink: sink)
        }
    }))
