import PluginAPI
import PluginKit

/// Routing data for PNG. The 8-byte signature is unambiguous, so no `sniff` is needed.
///
/// `IP_CODER_FAST_THUMBNAIL` without `IP_CODER_SCALES`: a non-interlaced PNG asked for a thumbnail is averaged in
/// whole blocks while its rows are inflated (BoxShrink), so only the reduced image is held; the host's resampler
/// finishes the size. An interlaced PNG revisits every row in each Adam7 pass and is decoded at full size.
/// `IP_DECODE_EXTENSION_SOURCE`: a large file is read as libpng asks for its chunks, never held whole.
/// `IP_CODER_THREAD_SAFE`: every call creates its own libpng structs (or libdeflate compressor) and keeps no shared state.
let pngDescriptor = Descriptors.coder(
    id: "org.imagepipe.coder.png/1", name: "PNG (libpng)", version: "1.0.0", format: "png",
    mimeTypes: ["image/png"], extensions: ["png"],
    capabilities: IP_CODER_THREAD_SAFE | IP_CODER_FAST_THUMBNAIL,
    patterns: [MagicPattern(bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], relevance: 100)],
    decodeExtensions: [IP_DECODE_EXTENSION_SOURCE])

/// The coder's table, built by the kit from the implementations.
let pngCoder = CoderTable.make(descriptor: pngDescriptor, decoder: PNGDecoding.self, encoder: PNGEncoding.self)

extension PNGDecoding: PluginDecoding {}
extension PNGEncoding: PluginEncoding {}
