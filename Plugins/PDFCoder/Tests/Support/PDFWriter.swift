/// Writes small, valid PDFs for tests: one content stream per page, an xref table with computed offsets.
///
/// Only what the tests need: page boxes, /Rotate and a content stream of plain path operators (coloured
/// rectangles), so fixtures are readable and no font or third-party file is involved.
struct PDFWriter {
    struct Page {
        /// "x1 y1 x2 y2" in points.
        var mediaBox: String
        var cropBox: String?
        var rotate: Int
        /// Content stream operators, e.g. "1 0 0 rg 0 0 50 50 re f".
        var content: String

        init(mediaBox: String, cropBox: String? = nil, rotate: Int = 0, content: String) {
            self.mediaBox = mediaBox
            self.cropBox = cropBox
            self.rotate = rotate
            self.content = content
        }
    }

    var pages: [Page]

    init(_ pages: [Page]) { self.pages = pages }

    /// Object 1 is the catalog, 2 the page tree, then for each page its dictionary and its content stream.
    var bytes: [UInt8] {
        var output = Array("%PDF-1.4\n%\u{E2}\u{E3}\u{CF}\u{D3}\n".utf8)
        var offsets: [Int] = []
        func add(_ body: String) {
            offsets.append(output.count)
            output += Array("\(offsets.count) 0 obj\n\(body)\nendobj\n".utf8)
        }
        let kids = pages.indices.map { "\(3 + 2 * $0) 0 R" }.joined(separator: " ")
        add("<< /Type /Catalog /Pages 2 0 R >>")
        add("<< /Type /Pages /Kids [\(kids)] /Count \(pages.count) >>")
        for (index, page) in pages.enumerated() {
            var dictionary = "<< /Type /Page /Parent 2 0 R /MediaBox [\(page.mediaBox)]"
            if let crop = page.cropBox { dictionary += " /CropBox [\(crop)]" }
            if page.rotate != 0 { dictionary += " /Rotate \(page.rotate)" }
            add(dictionary + " /Contents \(4 + 2 * index) 0 R >>")
            let stream = Array(page.content.utf8)
            add("<< /Length \(stream.count) >>\nstream\n\(page.content)\nendstream")
        }
        let xref = output.count
        var table = "xref\n0 \(offsets.count + 1)\n0000000000 65535 f \n"
        for offset in offsets {
            let digits = String(offset)
            table += String(repeating: "0", count: 10 - digits.count) + digits + " 00000 n \n"
        }
        table += "trailer\n<< /Size \(offsets.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return output + Array(table.utf8)
    }
}

/// Content-stream snippets.
enum Draw {
    /// A filled rectangle in DeviceRGB, colour components 0...1.
    static func rect(_ x: Double, _ y: Double, _ width: Double, _ height: Double,
                     rgb: (Double, Double, Double)) -> String {
        "\(rgb.0) \(rgb.1) \(rgb.2) rg \(x) \(y) \(width) \(height) re f\n"
    }

    static let red = (1.0, 0.0, 0.0), green = (0.0, 1.0, 0.0), blue = (0.0, 0.0, 1.0), black = (0.0, 0.0, 0.0)

    /// Four vertical 50 pt stripes (red, green, blue, black) over a 200 x 100 pt page: where each lands shows
    /// how a page was scaled, cropped or turned.
    static let stripes = rect(0, 0, 50, 100, rgb: red) + rect(50, 0, 50, 100, rgb: green)
        + rect(100, 0, 50, 100, rgb: blue) + rect(150, 0, 50, 100, rgb: black)

    /// A red square in the bottom-left corner and a blue one in the top-right of a 200 x 100 pt page, plus a
    /// slanted band between them (x 45...150, y 20...80) whose anti-aliased edges show rendering differences.
    static let corners = rect(0, 0, 40, 40, rgb: red) + rect(160, 60, 40, 40, rgb: blue)
        + "0.2 0.6 0.3 rg 50 20 m 150 75 l 145 80 l 45 25 l f\n"
}
