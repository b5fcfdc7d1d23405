import PluginAPI
import PluginKit

/// Routing data for WebP: "RIFF" at 0 and "WEBP" at 8 as one masked 12-byte pattern (the RIFF size in between
/// is free), so no `sniff` is needed.
///
/// `IP_CODER_FAST_THUMBNAIL` but not `IP_CODER_SCALES`: a still image is shrunk on load by libwebp's scaler to a
/// size that covers the requested output (see `WebPScaling`); the host finishes the exact resize or crop.
/// `IP_CODER_THREAD_SAFE`: every call has its own libwebp objects; libwebp keeps no shared mutable state.
let webpDescriptor = Descriptors.coder(
    id: "org.imagepipe.coder.webp/1", name: "WebP (libwebp)", version: "1.0.0", format: "webp",
    mimeTypes: ["image/webp"], extensions: ["webp"],
    capabilities: IP_CODER_FAST_THUMBNAIL | IP_CODER_THREAD_SAFE,
    patterns: [MagicPattern(
        bytes: Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8),
        mask: [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF], relevance: 100)])

/// The coder's table, built by the kit from the implementations.
let webpCoder = CoderTable.make(descriptor: webpDescriptor, decoder: WebPDecoding.self, frames: WebPFrameIterator.self,
                                incremental: WebPIncrementalSession.self, encoder: WebPEncoding.self)

extension WebPDecoding: PluginDecoding {}
extension WebPFrameIterator: FrameIterating {}
extension WebPIncrementalSession: IncrementalDecoding {}
extension WebPEncoding: PluginEncoding {}
