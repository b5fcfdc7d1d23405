import PluginAPI
import PluginKit

/// Names this plugin uses in the host's log.
enum HEIFCoder {
    static let pluginID = "org.imagepipe.heif"
}

/// Routing data for HEIF/HEIC.
///
/// The `ftyp` pattern only makes a file a candidate (AVIF shares it): sniff() reads the brands, and the relevance
/// of 90 stays below the AVIF coder's 100 so that AVIF wins whenever both would claim a file.
/// IP_CODER_THREAD_SAFE: every call opens its own libheif context, and heif_init has run once before the first.
/// IP_CODER_FAST_THUMBNAIL without IP_CODER_SCALES: an embedded thumbnail that covers the requested size is
/// decoded instead of the full image, and the host resamples the rest. IP_CODER_CAN_ENCODE only when libheif has
/// an HEVC encoder here, decided once when this table is built.
let heifDescriptor = Descriptors.coder(
    id: "org.imagepipe.coder.heif/1", name: "HEIF (libheif)", version: "1.0.0", format: "heif",
    mimeTypes: ["image/heic", "image/heif"], extensions: ["heic", "heif", "hif"],
    capabilities: IP_CODER_MULTIPAGE | IP_CODER_FAST_THUMBNAIL | IP_CODER_THREAD_SAFE,
    patterns: [MagicPattern(offset: 4, ascii: "ftyp", relevance: 90, confirmWithSniff: true)],
    sniffBytes: HEIFSniffer.maxFileTypeBoxSize)

/// The coder's table, built by the kit from the implementations (an encoder only where libheif has HEVC).
let heifCoder = CoderTable.make(descriptor: heifDescriptor, sniffer: HEIFSniffer.self, decoder: HEIFDecoding.self,
                                encoder: LibHEIF.canEncodeHEVC ? HEIFEncoding.self : nil)

extension HEIFSniffer: ImageSniffing {}
extension HEIFDecoding: PluginDecoding {}
extension HEIFEncoding: PluginEncoding {}

let pluginEntry = PluginEntry.make(
    id: HEIFCoder.pluginID, name: "HEIFCoder", version: "1.0.0",
    description: "HEIF/HEIC through libheif 1.15: primary and other top-level images, alpha, 10/12-bit, grids, "
        + "embedded-thumbnail shrink-on-load; HEIC encoding through x265 when libheif has it",
    coders: [heifCoder])

/// The plugin's only exported symbol.
@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry.pointer }
