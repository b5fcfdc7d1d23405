import PluginAPI
import PluginKit

/// Routing data for JPEG. `FF D8 FF` (SOI followed by the next marker) is unambiguous, so no `sniff` is needed.
/// (`nonisolated(unsafe)`: written once by its initialiser, then immutable C data.)
///
/// `IP_CODER_FAST_THUMBNAIL` but not `IP_CODER_SCALES`: libjpeg's DCT scaling decodes at 1/8..8/8 of the size,
/// never below the requested box, and the host's high-quality resampler finishes (see `ShrinkOnLoad`).
/// `IP_CODER_THREAD_SAFE`: every call creates its own libjpeg structs and keeps no shared state.
nonisolated(unsafe) let jpegDescriptor = Descriptors.coder(
    id: "org.imagepipe.coder.jpeg/1", name: "JPEG (libjpeg-turbo)", version: "1.0.0", format: "jpeg",
    mimeTypes: ["image/jpeg"], extensions: ["jpg", "jpeg", "jpe", "jfif"],
    capabilities: IP_CODER_CAN_DECODE | IP_CODER_CAN_ENCODE | IP_CODER_FAST_THUMBNAIL | IP_CODER_THREAD_SAFE
        | IP_CODER_INCREMENTAL,
    patterns: [MagicPattern(bytes: [0xFF, 0xD8, 0xFF], relevance: 100)])

/// The coder's vtable. Each slot is a non-capturing C closure that enters Swift through `withStatus`.
nonisolated(unsafe) let jpegCoder = StaticStorage.value(ip_coder(
    struct_size: UInt32(MemoryLayout<ip_coder>.size),
    descriptor: jpegDescriptor,
    sniff: nil,
    probe: { request, info, message in
        withStatus(message) { try JPEGDecoding.probe(request, into: info) }
    },
    decode: { request, image, message in
        withStatus(message) { try JPEGDecoding.decode(request, into: image) }
    },
    frames_open: nil, frames_next: nil, frames_close: nil,
    incremental_open: { options, decoder, message in
        withStatus(message) { try JPEGIncremental.open(options, decoder) }
    },
    incremental_update: { decoder, data, size, isFinal, call, image, message in
        withStatus(message) {
            try JPEGIncremental.update(decoder, data: data, size: size, isFinal: isFinal != 0, call: call, into: image)
        }
    },
    incremental_close: { decoder in JPEGIncremental.close(decoder) },
    encode: { frames, frameCount, options, call, sink, message in
        withStatus(message) {
            try JPEGEncoding.encode(frames: frames, count: frameCount, options: options, call: call, sink: sink)
        }
    }))
