import PipelineHost
import Testing
import TestSupport

/// Probe facts, page selection, background, template tint and limits.
@Suite("PDF options")
struct PDFOptionsTests {
    /// Three pages of different sizes; page 2 has /Rotate 90.
    static let threePages = PDFWriter([
        .init(mediaBox: "0 0 200 100", content: Draw.corners),
        .init(mediaBox: "0 0 300 150", rotate: 90, content: Draw.rect(0, 0, 300, 150, rgb: Draw.green)),
        .init(mediaBox: "0 0 120 80", content: Draw.rect(0, 0, 120, 80, rgb: Draw.blue)),
    ]).bytes

    @Test("probe: page count, page 1 size at 72 dpi, frames, alpha, depth, format and rotation details")
    func probe() throws {
        let info = try PDFTest.probe(Self.threePages)
        #expect(info.format == "pdf")
        #expect(info.coderID == PDFTest.coderID)
        #expect(info.pageCount == 3)
        #expect(info.frameCount == 1)
        #expect((info.width, info.height) == (200, 100))
        #expect(info.hasAlpha == false)
        #expect(info.bitDepth == 8)
        #expect(info.details.contains("3 pages, numbered from 0"), "\(info.details)")
        // Numbered as --page / pageIndex counts: the second page is "page 1".
        #expect(info.details.contains("page 1: 150x300 pt (rotated 90 or 270)"), "\(info.details)")
    }

    @Test("pageIndex picks the page; its size and index come back")
    func pageSelection() throws {
        let second = try PDFTest.decode(Self.threePages, DecodeOptions(pageIndex: 1))
        #expect((second.width, second.height, second.index) == (150, 300, 1))
        #expect(second.rgba(75, 150) == [0, 255, 0, 255])
        let third = try PDFTest.decode(Self.threePages, DecodeOptions(pageIndex: 2))
        #expect((third.width, third.height, third.index) == (120, 80, 2))
        #expect(third.rgba(60, 40) == [0, 0, 255, 255])
    }

    @Test("a page index past the end is NOT_FOUND and the message names the page count")
    func pageOutOfRange() throws {
        let error = try #require(try PDFTest.decodeError(Self.threePages, DecodeOptions(pageIndex: 3)))
        #expect(error.status == .notFound)
        #expect(error.description.contains("3 pages, numbered from 0 (0...2)"), "\(error)")
    }

    @Test("white background by default: opaque everywhere, alpha mode none")
    func whiteBackground() throws {
        let image = try PDFTest.decode(Self.threePages)
        #expect(image.alphaMode == .none)
        #expect(image.rgba(100, 10) == [255, 255, 255, 255])
        #expect(image.rgba(10, 90) == [255, 0, 0, 255])
    }

    @Test("transparentBackground leaves unpainted areas transparent, premultiplied")
    func transparentBackground() throws {
        let image = try PDFTest.decode(Self.threePages, DecodeOptions(transparentBackground: true))
        #expect(image.alphaMode == .premultiplied)
        #expect(image.rgba(100, 10) == [0, 0, 0, 0])
        #expect(image.rgba(10, 90) == [255, 0, 0, 255])
        #expect(image.rgba(190, 10) == [0, 0, 255, 255])
    }

    @Test("template + tint: the tint colour everywhere, alpha = coverage x tint alpha (straight)")
    func templateTint() throws {
        let tint = RGBAColor(red: 10, green: 120, blue: 250, alpha: 200)
        let image = try PDFTest.decode(Self.threePages, DecodeOptions(tint: tint, template: true))
        #expect(image.alphaMode == .straight)
        #expect(image.rgba(10, 90) == [10, 120, 250, 200])   // inside the red square: full coverage
        #expect(image.rgba(190, 10) == [10, 120, 250, 200])  // inside the blue square
        #expect(image.rgba(100, 2) == [10, 120, 250, 0])     // background: no coverage (not white)
        // Anti-aliased edges of the slanted band give partial coverage, never more than the tint's alpha.
        let alphas = (0..<image.height).flatMap { y in (0..<image.width).map { x in image.rgba(x, y)[3] } }
        #expect(alphas.contains { $0 > 0 && $0 < 200 })
        #expect(alphas.allSatisfy { $0 <= 200 })
    }

    @Test("a tint without template changes nothing (PDF has no currentColor)")
    func tintWithoutTemplate() throws {
        let plain = try PDFTest.decode(Self.threePages)
        let tinted = try PDFTest.decode(Self.threePages, DecodeOptions(tint: RGBAColor(red: 0, green: 0, blue: 0)))
        #expect(plain.bytes == tinted.bytes)
    }

    @Test("the pixel limit refuses an output before anything is allocated")
    func pixelLimit() throws {
        let limits = DecodeLimits(maxPixels: 100 * 100)
        let error = try #require(try PDFTest.decodeError(Self.threePages, DecodeOptions(limits: limits)))
        #expect(error.status == .limitExceeded, "\(error)")
        // The same limit allows a thumbnail of the same page.
        let small = try PDFTest.decode(Self.threePages, DecodeOptions(thumbnailSize: PixelSize(width: 100, height: 100), limits: limits))
        #expect((small.width, small.height) == (100, 50))
    }

    @Test("a huge page box is capped by the limits: 14400 pt square (200 inches) at 72 dpi is 207 MP")
    func hugePage() throws {
        let pdf = PDFWriter([.init(mediaBox: "0 0 14400 14400", content: Draw.rect(0, 0, 100, 100, rgb: Draw.red))]).bytes
        let info = try PDFTest.probe(pdf)
        #expect((info.width, info.height) == (14400, 14400))
        let error = try #require(try PDFTest.decodeError(pdf, DecodeOptions(limits: DecodeLimits(maxPixels: 50_000_000))))
        #expect(error.status == .limitExceeded, "\(error)")
        // A thumbnail of it is fine.
        let thumbnail = try PDFTest.decode(pdf, DecodeOptions(thumbnailSize: PixelSize(width: 144, height: 144)))
        #expect((thumbnail.width, thumbnail.height) == (144, 144))
        #expect(thumbnail.rgba(0, 143) == [255, 0, 0, 255])
    }

    @Test("a requested size beyond cairo's 32767-pixel surfaces is LIMIT_EXCEEDED, not a crash")
    func beyondCairo() throws {
        let options = DecodeOptions(thumbnailSize: PixelSize(width: 40000, height: 10), scaleMode: .fill)
        let error = try #require(try PDFTest.decodeError(Self.threePages, options))
        #expect(error.status == .limitExceeded, "\(error)")
    }
}
