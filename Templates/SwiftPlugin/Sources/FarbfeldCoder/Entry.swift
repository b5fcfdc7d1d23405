import PluginAPI
import PluginKit

// The plugin glue, in the order you write it: routing data, the coder's table, the entry, the exported function.

/// Routing data: the host chooses this coder from these static facts without calling into the plugin.
/// The 8-byte magic is unambiguous, so no `sniff` is needed.
/// `IP_CODER_THREAD_SAFE`: decode and encode keep no shared state, so the host may call them concurrently.
/// Not `IP_CODER_SCALES`: farbfeld has no cheaper reduced-size decode; the host resamples the full image.
nonisolated(unsafe) let farbfeldDescriptor = Descriptors.coder(
    id: "org.example.coder.farbfeld/1", name: "farbfeld (Swift template)", version: "1.0.0", format: "farbfeld",
    mimeTypes: ["image/x-farbfeld"], extensions: ["ff", "farbfeld"],
    capabilities: IP_CODER_CAN_DECODE | IP_CODER_CAN_ENCODE | IP_CODER_THREAD_SAFE,
    patterns: [MagicPattern(bytes: Farbfeld.magic, relevance: 100)])

/// The coder's table. Each slot is a non-capturing C closure that enters Swift through `withStatus`, which turns a
/// thrown `PluginFailure` into the status and message the host sees. Empty slots mean "not implemented".
nonisolated(unsafe) let farbfeldCoder = StaticStorage.value(ip_coder(
    struct_size: UInt32(MemoryLayout<ip_coder>.size),
    descriptor: farbfeldDescriptor,
    sniff: nil,
    probe: { request, info, message in
        withStatus(message) { try FarbfeldDecoding.probe(request, into: info) }
    },
    decode: { request, image, message in
        withStatus(message) { try FarbfeldDecoding.decode(request, into: image) }
    },
    frames_open: nil, frames_next: nil, frames_close: nil,
    incremental_open: nil, incremental_update: nil, incremental_close: nil,
    encode: { frames, frameCount, options, call, sink, message in
        withStatus(message) { try FarbfeldEncoding.encode(frames: frames, count: frameCount, call: call, sink: sink) }
    }))

/// The plugin's entry table: identity, ABI version and its factories (built by PluginKit).
nonisolated(unsafe) let pluginEntry = PluginEntry.make(
    id: "org.example.farbfeld", name: "farbfeld", version: "1.0.0", vendor: "imagepipe template",
    description: "farbfeld decoder and encoder written in Swift (the Swift plugin template)",
    coders: [farbfeldCoder])

/// The plugin's only exported symbol (exports.map hides everything else).
@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry }
