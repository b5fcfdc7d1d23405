import PluginAPI
import PluginKit

/// Routing data for TIFF: the byte-order mark and the version (42 classic, 43 BigTIFF) in both byte orders, exact,
/// so no sniff is needed. `IP_CODER_MULTIPAGE`: each image file directory that is not a reduced-resolution copy is a
/// page. `IP_CODER_THREAD_SAFE`: every call opens its own `TIFF *` with its own error handlers (libtiff 4.5
/// TIFFOpenOptions); the process-wide handlers are cleared once, so nothing is printed. `IP_CODER_FAST_THUMBNAIL`:
/// pyramids (overview chains and SubIFDs) are shrink-on-load (`TIFFLevels`). `IP_DECODE_EXTENSION_SOURCE`: a large
/// file is read strip by strip or tile by tile through the host's reader, never held whole.
let tiffDescriptor = Descriptors.coder(
    id: "org.imagepipe.coder.tiff/1", name: "TIFF (libtiff)", version: "1.0.0", format: "tiff",
    mimeTypes: ["image/tiff"], extensions: ["tif", "tiff"],
    capabilities: IP_CODER_MULTIPAGE | IP_CODER_THREAD_SAFE | IP_CODER_FAST_THUMBNAIL,
    patterns: [
        MagicPattern(bytes: Array("II".utf8) + [42, 0], relevance: 100),
        MagicPattern(bytes: Array("MM".utf8) + [0, 42], relevance: 100),
        MagicPattern(bytes: Array("II".utf8) + [43, 0], relevance: 100),
        MagicPattern(bytes: Array("MM".utf8) + [0, 43], relevance: 100),
    ],
    decodeExtensions: [IP_DECODE_EXTENSION_SOURCE])

/// The coder's table, built by the kit from the implementations.
let tiffCoder = CoderTable.make(descriptor: tiffDescriptor, decoder: TIFFDecoding.self, encoder: TIFFEncoding.self)

extension TIFFDecoding: PluginDecoding {}
extension TIFFEncoding: PluginEncoding {}
