import PluginAPI
import PluginKit

/// The SVG coder: librsvg 2.54 renders the document with cairo directly at the requested size.
///
/// Not IP_CODER_THREAD_SAFE: handles are independent, but rendering text from several threads at once has been
/// seen to crash inside cairo's FreeType glyph cache (timg added a global mutex around render_document for it),
/// so the host serialises calls. IP_CODER_RECOMMENDS_ISOLATION: librsvg 2.54 panics, overflows its stack or
/// loops on some hostile files (see the corpus's bad/ reproducers).
let svgDescriptor = Descriptors.coder(
    id: "org.imagepipe.coder.svg/1", name: "SVG (librsvg)", version: "1.0.0", format: "svg",
    mimeTypes: ["image/svg+xml"], extensions: ["svg", "svgz"],
    capabilities: IP_CODER_VECTOR | IP_CODER_SCALES | IP_CODER_FAST_THUMBNAIL | IP_CODER_RECOMMENDS_ISOLATION,
    patterns: [
        // Text has no fixed magic: a "<svg" in the first 4 KiB makes the file a candidate that sniff() confirms
        // (see SVGSniffer); routing other files never opens librsvg.
        MagicPattern(ascii: "<svg", relevance: 50, confirmWithSniff: true, searchRange: 4092),
        // Last resort (a prefixed root such as <svg:svg, or a prolog longer than 4 KiB): every source is a
        // candidate at the lowest relevance.
        MagicPattern(bytes: [], relevance: 10, confirmWithSniff: true),
        // gzip (.svgz): sniff() inflates the first few KiB and applies the same rule. Low relevance so that a
        // coder for another gzip-based format, if it also claims a file, wins.
        MagicPattern(bytes: [0x1F, 0x8B], relevance: 30, confirmWithSniff: true),
    ],
    sniffBytes: 4096, decodeExtensions: [IP_DECODE_EXTENSION_TINT])

/// The coder's table, built by the kit from the implementations.
let svgCoder = CoderTable.make(descriptor: svgDescriptor, sniffer: SVGSniffer.self, decoder: SVGCoder.self)

extension SVGCoder: PluginDecoding {}

extension SVGSniffer: ImageSniffing {
    /// sniff(): OK for SVG (plain or gzip-compressed), UNSUPPORTED otherwise, NEED_MORE when the bytes end too soon.
    static func sniff(_ data: UnsafePointer<UInt8>?, _ size: Int) -> ip_status {
        guard let data, size > 0 else { return ip_status(IP_STATUS_NEED_MORE) }
        let bytes = UnsafeBufferPointer(start: data, count: size)
        let verdict: Verdict
        if bytes[0] == 0x1F {
            verdict = size < 2 ? .needMore : GzipPeek.sniff(bytes)
        } else {
            verdict = classify(bytes)
        }
        switch verdict {
        case .svg: return ip_status(IP_STATUS_OK)
        case .notSVG: return ip_status(IP_STATUS_UNSUPPORTED)
        case .needMore: return ip_status(IP_STATUS_NEED_MORE)
        }
    }
}

let pluginEntry = PluginEntry.make(
    id: "org.imagepipe.svg", name: "SVGCoder", version: "1.0.0",
    description: "SVG and SVGZ through librsvg 2.54 and cairo, rendered at the requested size",
    coders: [svgCoder])

@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry.pointer }
