import PluginAPI
import PluginKit

/// Routing data for JPEG XL: a naked codestream starts FF 0A; the ISO BMFF container with its 12-byte signature
/// box ("JXL " box type, then the 0D 0A 87 0A marker). Both are exact, so no sniff is needed.
///
/// `IP_CODER_THREAD_SAFE`: every call makes its own libjxl decoder or encoder and its own thread runner; libjxl
/// keeps no shared mutable state. No `IP_CODER_SCALES`: the host resamples what decode returns (libjxl 0.7 has no
/// downscaled decode). `IP_CODER_FAST_THUMBNAIL`: a lossy still whose thumbnail needs at most 1:8 decodes its DC
/// pass only (`JXLDecoding.dcThumbnail`).
/// `transcodes`: lossless JPEG recompression both ways (`JXLTranscoding`). Incremental: progressive previews
/// (`JXLIncrementalSession`).
let jxlDescriptor = Descriptors.coder(
    id: "org.imagepipe.coder.jxl/1", name: "JPEG XL (libjxl)", version: "1.0.0", format: "jxl",
    mimeTypes: ["image/jxl"], extensions: ["jxl"],
    capabilities: IP_CODER_THREAD_SAFE | IP_CODER_FAST_THUMBNAIL,
    patterns: [
        MagicPattern(bytes: [0xFF, 0x0A], relevance: 90),
        MagicPattern(bytes: [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A], relevance: 100),
    ],
    transcodes: [JXLTranscoding.fromJPEG, JXLTranscoding.toJPEG])

/// The coder's table, built by the kit from the implementations.
let jxlCoder = CoderTable.make(descriptor: jxlDescriptor, decoder: JXLDecoding.self, frames: JXLFrameIterator.self,
                               incremental: JXLIncrementalSession.self, encoder: JXLEncoding.self, transcoder: JXLTranscoding.self)

extension JXLDecoding: PluginDecoding {}
extension JXLFrameIterator: FrameIterating {}
extension JXLIncrementalSession: IncrementalDecoding {}
extension JXLEncoding: PluginEncoding {}
extension JXLTranscoding: PluginTranscoding {}
