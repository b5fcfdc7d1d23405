import PluginAPI
import PluginKit

/// Routing data for GIF: the two signatures are unambiguous, so no `sniff` is needed.
///
/// Not `IP_CODER_SCALES`: GIF has no reduced-size decode, so the host resamples.
/// `IP_CODER_THREAD_SAFE`: every call opens its own giflib handle over its own bytes and keeps no shared state
/// (the encoder's quantiser is the plugin's own, not giflib's `GifQuantizeBuffer`, which keeps a static).
let gifDescriptor = Descriptors.coder(
    id: "org.imagepipe.coder.gif/1", name: "GIF (giflib)", version: "1.0.0", format: "gif",
    mimeTypes: ["image/gif"], extensions: ["gif"],
    capabilities: IP_CODER_THREAD_SAFE,
    patterns: [MagicPattern(ascii: "GIF87a", relevance: 100), MagicPattern(ascii: "GIF89a", relevance: 100)])

/// The coder's table, built by the kit from the implementations.
let gifCoder = CoderTable.make(descriptor: gifDescriptor, decoder: GIFDecoding.self, frames: GIFFrameIterator.self,
                               encoder: GIFEncoding.self)

extension GIFDecoding: PluginDecoding {}
extension GIFFrameIterator: FrameIterating {}
extension GIFEncoding: PluginEncoding {}
