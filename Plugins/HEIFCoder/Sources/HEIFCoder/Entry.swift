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
nonisolated(unsafe) let heifDescriptor = Descriptors.coder(
    id: "org.imagepipe.coder.heif/1", name: "HEIF (libheif)", version: "1.0.0", format: "heif",
    mimeTypes: ["image/heic", "image/heif"], extensions: ["heic", "heif", "hif"],
    capabilities: IP_CODER_CAN_DECODE | IP_CODER_MULTIPAGE | IP_CODER_FAST_THUMBNAIL | IP_CODER_THREAD_SAFE
        | (LibHEIF.canEncodeHEVC ? IP_CODER_CAN_ENCODE : 0),
    patterns: [MagicPattern(offset: 4, ascii: "ftyp", relevance: 90, confirmWithSniff: true)],
    sniffBytes: HEIFSniffer.maxFileTypeBoxSize)

/// The coder's vtable. Each slot is a non-capturing C closure that enters Swift through `withStatus`.
nonisolated(unsafe) let heifCoder = StaticStorage.value(ip_coder(
    struct_size: UInt32(MemoryLayout<ip_coder>.size),
    descriptor: heifDescriptor,
    sniff: { data, size in HEIFSniffer.status(data, size) },
    probe: { request, info, message in withStatus(message) { try HEIFDecoding.probe(request, info) } },
    decode: { request, image, message in withStatus(message) { try HEIFDecoding.decode(request, image) } },
    frames_open: nil, frames_next: nil, frames_close: nil,
    incremental_open: nil, incremental_update: nil, incremental_close: nil,
    encode: LibHEIF.canEncodeHEVC
        ? { frames, count, options, call, sink, message in
            withStatus(message) {
                try HEIFEncoding.encode(frames: frames, count: count, options: options, call: call, sink: sink)
            }
        } : nil))

nonisolated(unsafe) let pluginEntry = PluginEntry.make(
    id: HEIFCoder.pluginID, name: "HEIFCoder", version: "1.0.0",
    description: "HEIF/HEIC through libheif 1.15: primary and other top-level images, alpha, 10/12-bit, grids, "
        + "embedded-thumbnail shrink-on-load; HEIC encoding through x265 when libheif has it",
    coders: [heifCoder])

/// The plugin's only exported symbol.
@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry }
