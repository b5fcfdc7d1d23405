import PipelineHost
import Testing
import TestSupport

/// Where page content lands: /Rotate, the crop box, and the fit / fill / aspect-fill rules of `ip_place`.
/// These checks need no reference tool: they read single pixels away from anti-aliased edges.
@Suite("PDF page geometry")
struct PDFGeometryTests {
    static let red = [255, 0, 0, 255], green = [0, 255, 0, 255], blue = [0, 0, 255, 255]
    static let black = [0, 0, 0, 255], white = [255, 255, 255, 255]

    /// Red bottom-left, blue top-right of a 200 x 100 pt page, as drawn with /Rotate `rotate`.
    static func corners(rotate: Int) -> [UInt8] {
        PDFWriter([.init(mediaBox: "0 0 200 100", rotate: rotate, content: Draw.corners)]).bytes
    }

    @Test("no /Rotate: red bottom-left, blue top-right")
    func unrotated() throws {
        let image = try PDFTest.decode(Self.corners(rotate: 0))
        #expect((image.width, image.height) == (200, 100))
        #expect(image.rgba(10, 90) == Self.red)
        #expect(image.rgba(190, 10) == Self.blue)
    }

    @Test("/Rotate 90 turns the page clockwise: sides swap, bottom-left goes to top-left")
    func rotate90() throws {
        let image = try PDFTest.decode(Self.corners(rotate: 90))
        #expect((image.width, image.height) == (100, 200))
        #expect(image.rgba(10, 10) == Self.red)
        #expect(image.rgba(90, 190) == Self.blue)
    }

    @Test("/Rotate 180: bottom-left goes to top-right")
    func rotate180() throws {
        let image = try PDFTest.decode(Self.corners(rotate: 180))
        #expect((image.width, image.height) == (200, 100))
        #expect(image.rgba(190, 10) == Self.red)
        #expect(image.rgba(10, 90) == Self.blue)
    }

    @Test("/Rotate 270: bottom-left goes to bottom-right")
    func rotate270() throws {
        let image = try PDFTest.decode(Self.corners(rotate: 270))
        #expect((image.width, image.height) == (100, 200))
        #expect(image.rgba(90, 190) == Self.red)
        #expect(image.rgba(10, 10) == Self.blue)
    }

    @Test("the crop box, not the MediaBox, is the page: its origin is the image's bottom-left")
    func cropBox() throws {
        let pdf = PDFWriter([.init(mediaBox: "0 0 200 200", cropBox: "30 20 170 120", content: CropFixture.content)]).bytes
        let info = try PDFTest.probe(pdf)
        #expect((info.width, info.height) == (140, 100))
        let image = try PDFTest.decode(pdf)
        #expect((image.width, image.height) == (140, 100))
        #expect(image.rgba(10, 90) == Self.red)    // crop-box corner (30, 20) + 10 pt
        #expect(image.rgba(130, 10) == Self.blue)  // crop-box corner (170, 120) - 10 pt
        // The green strip left of the crop box and the black band above it are cut away.
        #expect(image.rgba(1, 50) == Self.white)
        #expect(image.rgba(70, 1) == Self.white)
    }

    @Test("crop box and /Rotate 90 together")
    func cropBoxRotated() throws {
        let pdf = PDFWriter([.init(mediaBox: "0 0 200 200", cropBox: "30 20 170 120", rotate: 90, content: CropFixture.content)]).bytes
        let image = try PDFTest.decode(pdf)
        #expect((image.width, image.height) == (100, 140))
        #expect(image.rgba(10, 10) == Self.red)
        #expect(image.rgba(90, 130) == Self.blue)
    }

    // Stripes: red, green, blue, black, 50 pt each across a 200 x 100 pt page.
    static let stripes = PDFWriter([.init(mediaBox: "0 0 200 100", content: Draw.stripes)]).bytes

    @Test("fit keeps the aspect ratio inside the box")
    func fit() throws {
        let image = try PDFTest.decode(Self.stripes, DecodeOptions(thumbnailSize: PixelSize(width: 100, height: 100), scaleMode: .fit))
        #expect((image.width, image.height) == (100, 50))
        #expect(image.rgba(12, 25) == Self.red)
        #expect(image.rgba(87, 25) == Self.black)
    }

    @Test("fill stretches to exactly the box")
    func fill() throws {
        let image = try PDFTest.decode(Self.stripes, DecodeOptions(thumbnailSize: PixelSize(width: 100, height: 100), scaleMode: .fill))
        #expect((image.width, image.height) == (100, 100))
        #expect(image.rgba(12, 50) == Self.red)
        #expect(image.rgba(37, 50) == Self.green)
        #expect(image.rgba(62, 50) == Self.blue)
        #expect(image.rgba(87, 50) == Self.black)
    }

    @Test("aspect-fill covers the box and crops the overflow centred")
    func aspectFill() throws {
        let image = try PDFTest.decode(Self.stripes, DecodeOptions(thumbnailSize: PixelSize(width: 100, height: 100), scaleMode: .aspectFill))
        // Scale 1 (the height fills the box), 50 pt cut from each side: only green and blue remain.
        #expect((image.width, image.height) == (100, 100))
        #expect(image.rgba(2, 50) == Self.green)
        #expect(image.rgba(97, 50) == Self.blue)
    }

    @Test("a vector page upscales to a box larger than its 72-dpi size, in every mode")
    func upscales() throws {
        let box = PixelSize(width: 400, height: 400)
        let fit = try PDFTest.decode(Self.stripes, DecodeOptions(thumbnailSize: box, scaleMode: .fit))
        #expect((fit.width, fit.height) == (400, 200))
        let aspectFill = try PDFTest.decode(Self.stripes, DecodeOptions(thumbnailSize: box, scaleMode: .aspectFill))
        #expect((aspectFill.width, aspectFill.height) == (400, 400))
        #expect(aspectFill.rgba(5, 200) == Self.green)
        let oneSide = try PDFTest.decode(Self.stripes, DecodeOptions(thumbnailSize: PixelSize(width: 0, height: 300)))
        #expect((oneSide.width, oneSide.height) == (600, 300))
    }

    @Test("one side of the box given: the other follows the aspect ratio")
    func oneSide() throws {
        let image = try PDFTest.decode(Self.stripes, DecodeOptions(thumbnailSize: PixelSize(width: 50, height: 0)))
        #expect((image.width, image.height) == (50, 25))
    }

    @Test("intrinsic size is the display size in points rounded up, as pdftoppm -r 72 -cropbox")
    func roundsUp() throws {
        let pdf = PDFWriter([.init(mediaBox: "0 0 100.4 50.2", content: Draw.rect(0, 0, 10, 10, rgb: Draw.red))]).bytes
        let info = try PDFTest.probe(pdf)
        #expect((info.width, info.height) == (101, 51))
        let image = try PDFTest.decode(pdf)
        #expect((image.width, image.height) == (101, 51))
    }
}
