import PluginAPI
import PluginKit

/// Reads a PDF's facts without rendering: page count, page 1's display size at 72 dpi, versions, rotation.
enum PDFProbe {
    /// How many pages `details` describes by size before summarising.
    static let describedPages = 4

    static func probe(_ request: DecodeRequestView) throws -> ip_image_info {
        let document = try PDFDocument.open(request)
        let count = document.pageCount
        let first = try document.page(at: 0)
        let size = try first.requireDrawableSize()

        var info = ip_image_info()
        info.struct_size = UInt32(MemoryLayout<ip_image_info>.size)
        // Rounded up like pdftoppm -r 72 -cropbox, so the probe agrees with an intrinsic-size decode.
        info.width = UInt32(min(size.width.rounded(.up), Double(UInt32.max)))
        info.height = UInt32(min(size.height.rounded(.up), Double(UInt32.max)))
        info.page_count = UInt32(count)
        info.frame_count = 1
        info.loop_count = -1
        info.bit_depth = 8
        info.has_alpha = 0  // pages render on white unless the caller asks for a transparent background
        setInfoStrings(&info, format: "pdf", details: details(document, pageCount: count))
        return info
    }

    /// e.g. "PDF-1.7; 3 pages, numbered from 0; page 0: 595x842 pt; page 1: 842x595 pt (rotated 90 or 270); ...".
    /// Numbered as the page index of a decode request (`--page`) counts, so what `info` lists is what to ask for.
    static func details(_ document: PDFDocument, pageCount: Int) -> String {
        var parts: [String] = []
        if let version = document.pdfVersion { parts.append(version) }
        parts.append("\(pageCount) page\(pageCount == 1 ? "" : "s")\(pageCount > 1 ? ", numbered from 0" : "")")
        for index in 0..<min(pageCount, describedPages) {
            guard let page = try? document.page(at: index) else {
                parts.append("page \(index): unreadable")
                continue
            }
            let size = page.displaySize
            var text = "page \(index): \(points(size.width))x\(points(size.height)) pt"
            if page.isQuarterTurned { text += " (rotated 90 or 270)" }
            parts.append(text)
        }
        if pageCount > describedPages { parts.append("...") }
        return parts.joined(separator: "; ")
    }

    /// Points with at most two decimals, without trailing zeros ("595", "595.28").
    private static func points(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let whole = hundredths / 100, fraction = hundredths % 100
        if fraction == 0 { return "\(whole)" }
        return fraction % 10 == 0 ? "\(whole).\(fraction / 10)" : "\(whole).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
