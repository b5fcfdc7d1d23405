import CPoppler
import PluginAPI
import PluginKit

/// The PDF coder's static descriptor: routing data the host reads without calling in.
///
/// Two magic patterns because poppler accepts a header anywhere in the first 1024 bytes (files with junk
/// before `%PDF-` exist in the wild, e.g. the PDF 2.0 "offset start" example): the usual header at offset 0
/// decides alone, and a low-relevance catch-all asks `PDFSniffer` to search the first 1024 bytes.
nonisolated(unsafe) private let pdfDescriptor = Descriptors.coder(
    id: "org.imagepipe.coder.pdf/1", name: "PDF (poppler)", version: "1.0.0", format: "pdf",
    mimeTypes: ["application/pdf", "application/x-pdf"], extensions: ["pdf"],
    // Not THREAD_SAFE: poppler-glib documents no thread-safety guarantee (not even across documents), so the
    // host serialises calls. Isolation is recommended: poppler has a long history of crashes on fuzzed input,
    // and some hostile pages make it allocate gigabytes (see README).
    capabilities: UInt64(IP_CODER_CAN_DECODE) | UInt64(IP_CODER_VECTOR) | UInt64(IP_CODER_MULTIPAGE)
        | UInt64(IP_CODER_SCALES) | UInt64(IP_CODER_FAST_THUMBNAIL) | UInt64(IP_CODER_RECOMMENDS_ISOLATION),
    patterns: [
        MagicPattern(offset: 0, ascii: "%PDF-", relevance: 100),
        // poppler accepts the header anywhere in the first 1024 bytes: a static search, no plugin call needed.
        MagicPattern(offset: 0, ascii: "%PDF-", relevance: 60, searchRange: PDFSniffer.searchWindow - 5),
    ],
    sniffBytes: PDFSniffer.searchWindow,
    decodeExtensions: [IP_DECODE_EXTENSION_TINT, IP_DECODE_EXTENSION_PASSWORD])

// `nonisolated(unsafe)` on the tables below: built once when the entry is first requested and never written
// again; the host only reads them.

/// The coder vtable. Each slot is a non-capturing C function that enters Swift through `withStatus`.
nonisolated(unsafe) private let pdfCoder = StaticStorage.value(ip_coder(
    struct_size: UInt32(MemoryLayout<ip_coder>.size),
    descriptor: pdfDescriptor,
    sniff: { data, size in PDFSniffer.sniff(data, size) },
    probe: { request, info, message in
        withStatus(message) {
            guard let info else { throw PluginFailure.internalError("NULL info") }
            let result = try PDFProbe.probe(DecodeRequestView(request))
            ABIStruct.write(result, to: info)
        }
    },
    decode: { request, image, message in
        withStatus(message) {
            guard let image else { throw PluginFailure.internalError("NULL image") }
            let result = try PDFRenderer.decode(DecodeRequestView(request))
            ABIStruct.write(result, to: image)
        }
    },
    frames_open: nil, frames_next: nil, frames_close: nil,
    incremental_open: nil, incremental_update: nil, incremental_close: nil,
    encode: nil))

nonisolated(unsafe) let pluginEntry = PluginEntry.make(
    id: "org.imagepipe.pdf", name: "PDFCoder", version: "1.0.0",
    description: "Renders PDF pages at any size with poppler-glib and cairo", coders: [pdfCoder])

@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry }
