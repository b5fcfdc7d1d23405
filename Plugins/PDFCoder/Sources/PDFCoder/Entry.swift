import CPoppler
import PluginAPI
import PluginKit

/// The PDF coder's static descriptor: routing data the host reads without calling in.
///
/// Two magic patterns because poppler accepts a header anywhere in the first 1024 bytes (files with junk
/// before `%PDF-` exist in the wild, e.g. the PDF 2.0 "offset start" example): the usual header at offset 0
/// decides alone, and a low-relevance catch-all asks `PDFSniffer` to search the first 1024 bytes.
private let pdfDescriptor = Descriptors.coder(
    id: "org.imagepipe.coder.pdf/1", name: "PDF (poppler)", version: "1.0.0", format: "pdf",
    mimeTypes: ["application/pdf", "application/x-pdf"], extensions: ["pdf"],
    // Not THREAD_SAFE: poppler-glib documents no thread-safety guarantee (not even across documents), so the
    // host serialises calls. Isolation is recommended: poppler has a long history of crashes on fuzzed input,
    // and some hostile pages make it allocate gigabytes (see README).
    capabilities: UInt64(IP_CODER_VECTOR) | UInt64(IP_CODER_MULTIPAGE) | UInt64(IP_CODER_SCALES)
        | UInt64(IP_CODER_FAST_THUMBNAIL) | UInt64(IP_CODER_RECOMMENDS_ISOLATION),
    patterns: [
        MagicPattern(offset: 0, ascii: "%PDF-", relevance: 100),
        // poppler accepts the header anywhere in the first 1024 bytes: a static search, no plugin call needed.
        MagicPattern(offset: 0, ascii: "%PDF-", relevance: 60, searchRange: PDFSniffer.searchWindow - 5),
    ],
    sniffBytes: PDFSniffer.searchWindow,
    decodeExtensions: [IP_DECODE_EXTENSION_TINT, IP_DECODE_EXTENSION_PASSWORD])

/// The coder's table, built by the kit from the implementations.
private let pdfCoder = CoderTable.make(descriptor: pdfDescriptor, sniffer: PDFSniffer.self, decoder: PDFDecoding.self)

extension PDFSniffer: ImageSniffing {}

/// probe and decode, from the views the probe and the renderer take.
enum PDFDecoding: PluginDecoding {
    static func probe(_ request: UnsafePointer<ip_decode_request>?, into info: UnsafeMutablePointer<ip_image_info>?) throws {
        guard let info else { throw PluginFailure.internalError("NULL info") }
        ABIStruct.write(try PDFProbe.probe(DecodeRequestView(request)), to: info)
    }

    static func decode(_ request: UnsafePointer<ip_decode_request>?, into image: UnsafeMutablePointer<ip_image>?) throws {
        guard let image else { throw PluginFailure.internalError("NULL image") }
        ABIStruct.write(try PDFRenderer.decode(DecodeRequestView(request)), to: image)
    }
}

let pluginEntry = PluginEntry.make(
    id: "org.imagepipe.pdf", name: "PDFCoder", version: "1.0.0",
    description: "Renders PDF pages at any size with poppler-glib and cairo", coders: [pdfCoder])

@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry.pointer }
