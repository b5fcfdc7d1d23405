import PluginAPI
import PluginKit

/// Routing data for PNG. The 8-byte signature is unambiguous, so no `sniff` is needed.
///
/// Not `IP_CODER_SCALES`: PNG has no cheaper reduced-size decode, so the host's resampler does the scaling.
/// `IP_CODER_THREAD_SAFE`: every call creates its own libpng structs (or libdeflate compressor) and keeps no shared state.
let pngDescriptor = Descriptors.coder(
    id: "org.imagepipe.coder.png/1", name: "PNG (libpng)", version: "1.0.0", format: "png",
    mimeTypes: ["image/png"], extensions: ["png"],
    capabilities: IP_CODER_THREAD_SAFE,
    patterns: [MagicPattern(bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], relevance: 100)])

/// The coder's table, built by the kit from the implementations.
let pngCoder = CoderTable.make(descriptor: pngDescriptor, decoder: PNGDecoding.self, encoder: PNGEncoding.self)

extension PNGDecoding: PluginDecoding {}
extension PNGEncoding: PluginEncoding {}
