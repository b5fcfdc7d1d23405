import PluginAPI
import PluginKit

/// Routing data for JPEG. `FF D8 FF` (SOI followed by the next marker) is unambiguous, so no `sniff` is needed.
/// `IP_CODER_FAST_THUMBNAIL` but not `IP_CODER_SCALES`: libjpeg's DCT scaling decodes at 1/8..8/8 of the size,
/// never below the requested box, and the host's high-quality resampler finishes (see `ShrinkOnLoad`).
/// `IP_CODER_THREAD_SAFE`: every call creates its own libjpeg structs and keeps no shared state.
let jpegDescriptor = Descriptors.coder(
    id: "org.imagepipe.coder.jpeg/1", name: "JPEG (libjpeg-turbo)", version: "1.0.0", format: "jpeg",
    mimeTypes: ["image/jpeg"], extensions: ["jpg", "jpeg", "jpe", "jfif"],
    capabilities: IP_CODER_FAST_THUMBNAIL | IP_CODER_THREAD_SAFE,
    patterns: [MagicPattern(bytes: [0xFF, 0xD8, 0xFF], relevance: 100)])

/// The coder's table, built by the kit from the implementations.
let jpegCoder = CoderTable.make(descriptor: jpegDescriptor, decoder: JPEGDecoding.self,
                                incremental: JPEGIncremental.Session.self, encoder: JPEGEncoding.self)

extension JPEGDecoding: PluginDecoding {}
extension JPEGIncremental.Session: IncrementalDecoding {}
extension JPEGEncoding: PluginEncoding {}
