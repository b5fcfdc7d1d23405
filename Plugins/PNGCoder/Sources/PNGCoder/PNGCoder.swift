import PluginAPI
import PluginKit

/// Routing data for PNG. The 8-byte signature is unambiguous, so no `sniff` is needed.
/// (`nonisolated(unsafe)`: written once by its initialiser, then immutable C data.)
///
/// Not `IP_CODER_SCALES`: PNG has no cheaper reduced-size decode, so the host's resampler does the scaling.
/// `IP_CODER_THREAD_SAFE`: every call creates its own libpng structs (or libdeflate compressor) and keeps no shared state.
nonisolated(unsafe) let pngDescriptor = Descriptors.coder(
    id: "org.imagepipe.coder.png/1", name: "PNG (libpng)", version: "1.0.0", format: "png",
    mimeTypes: ["image/png"], extensions: ["png"],
    capabilities: IP_CODER_CAN_DECODE | IP_CODER_CAN_ENCODE | IP_CODER_THREAD_SAFE,
    patterns: [MagicPattern(bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], relevance: 100)])

/// The coder's vtable. Each slot is a non-capturing C closure that enters Swift through `withStatus`.
nonisolated(unsafe) let pngCoder = StaticStorage.value(ip_coder(
    struct_size: UInt32(MemoryLayout<ip_coder>.size),
    descriptor: pngDescriptor,
    sniff: nil,
    probe: { request, info, message in
        withStatus(message) { try PNGDecoding.probe(request, into: info) }
    },
    decode: { request, image, message in
        withStatus(message) { try PNGDecoding.decode(request, into: image) }
    },
    frames_open: nil, frames_next: nil, frames_close: nil,
    incremental_open: nil, incremental_update: nil, incremental_close: nil,
    encode: { frames, frameCount, options, call, sink, message in
        withStatus(message) {
            try PNGEncoding.encode(frames: frames, count: frameCount, options: options, call: call, sink: sink)
        }
    }))
