import PipelineHost
import Testing

/// The host's downscaler: sizes, aspect ratios, flat areas, premultiplied edges, patterns.
@Suite struct ResamplingTests {
    private func image(_ width: Int, _ height: Int, _ pixel: (Int, Int) -> [UInt8]) throws -> Image {
        var bytes: [UInt8] = []
        for y in 0..<height { for x in 0..<width { bytes += pixel(x, y) } }
        return try Image(width: width, height: height, bytes: bytes)
    }

    @Test(arguments: [
        (PixelSize(width: 100, height: 100), ScaleMode.fit, 100, 50),
        (PixelSize(width: 100, height: 100), ScaleMode.fill, 100, 100),
        (PixelSize(width: 100, height: 100), ScaleMode.aspectFill, 100, 100),
        (PixelSize(width: 50, height: 0), ScaleMode.fit, 50, 25),
        (PixelSize(width: 0, height: 20), ScaleMode.fit, 40, 20),
        (PixelSize(width: 1000, height: 1000), ScaleMode.fit, 400, 200),  // never upscales by default
    ])
    func outputSizeKeepsTheAspectRatio(size: PixelSize, mode: ScaleMode, width: Int, height: Int) throws {
        let source = try image(400, 200) { _, _ in [10, 20, 30, 255] }
        let result = try ImageTransformers.Resize.resample(source, to: size, mode: mode)
        #expect(result.width == width && result.height == height)
        // A flat colour stays exactly flat (normalised weights).
        #expect(result.pixel(x: result.width / 2, y: result.height / 2) == RGBA16Pixel(r: 10, g: 20, b: 30, a: 255))
        #expect(result.pixel(x: 0, y: 0) == RGBA16Pixel(r: 10, g: 20, b: 30, a: 255))
    }

    @Test func upscaleOnlyWhenAsked() throws {
        let source = try image(10, 10) { _, _ in [1, 2, 3, 255] }
        let result = try ImageTransformers.Resize.resample(source, to: PixelSize(width: 40, height: 40), allowUpscale: true)
        #expect(result.width == 40 && result.height == 40)
    }

    @Test func checkerboardAveragesToGrey() throws {
        // A 1-pixel black/white checkerboard shrunk 8x is uniform mid grey: the filter is a proper low-pass.
        let source = try image(256, 256) { x, y in (x + y) % 2 == 0 ? [255, 255, 255, 255] : [0, 0, 0, 255] }
        let result = try ImageTransformers.Resize.resample(source, to: PixelSize(width: 32, height: 32))
        for y in 0..<32 { for x in 0..<32 {
            let p = result.pixel(x: x, y: y)
            #expect(abs(Int(p.r) - 128) <= 2 && p.a == 255, "pixel (\(x), \(y)) is \(p)")
        } }
    }

    @Test func halvesOfTwoColoursStayApartAtTheSeam() throws {
        // Left half red, right half blue, 200x100 → 20x10: columns far from the seam keep their colour exactly.
        let source = try image(200, 100) { x, _ in x < 100 ? [255, 0, 0, 255] : [0, 0, 255, 255] }
        let result = try ImageTransformers.Resize.resample(source, to: PixelSize(width: 20, height: 10))
        #expect(result.pixel(x: 2, y: 5) == RGBA16Pixel(r: 255, g: 0, b: 0, a: 255))
        #expect(result.pixel(x: 17, y: 5) == RGBA16Pixel(r: 0, g: 0, b: 255, a: 255))
        let seam = result.pixel(x: 10, y: 5)
        #expect(seam.b > 100 && seam.r < 100, "the seam pixel just right of the middle leans blue: \(seam)")
    }

    @Test func transparentNeighboursDoNotDarkenEdges() throws {
        // White opaque pixels beside fully transparent *black* ones: premultiplied filtering keeps the colour white.
        let source = try image(64, 64) { x, _ in x < 32 ? [255, 255, 255, 255] : [0, 0, 0, 0] }
        let result = try ImageTransformers.Resize.resample(source, to: PixelSize(width: 8, height: 8))
        for x in 0..<8 {
            let p = result.pixel(x: x, y: 4)
            if p.a > 8 { #expect(p.r >= 250 && p.g >= 250 && p.b >= 250, "column \(x): \(p) darkened") }
        }
        #expect(result.pixel(x: 0, y: 0).a == 255 && result.pixel(x: 7, y: 0).a == 0)
    }

    @Test func aspectFillCropsTheCentre() throws {
        // A 300x100 image with a red middle third, aspect-filled into 50x50: only the middle shows, so all red.
        let source = try image(300, 100) { x, _ in (100..<200).contains(x) ? [255, 0, 0, 255] : [0, 255, 0, 255] }
        let result = try ImageTransformers.Resize.resample(source, to: PixelSize(width: 50, height: 50), mode: .aspectFill)
        #expect(result.width == 50 && result.height == 50)
        #expect(result.pixel(x: 25, y: 25) == RGBA16Pixel(r: 255, g: 0, b: 0, a: 255))
        #expect(result.pixel(x: 3, y: 25).r > 240)
    }

    @Test func templateTintKeepsAlphaAndReplacesColour() throws {
        let source = try image(2, 1) { x, _ in x == 0 ? [10, 20, 30, 255] : [200, 100, 0, 128] }
        let result = try ImageTransformers.Tint.template(source, color: RGBAColor(red: 255, green: 59, blue: 48))
        #expect(result.pixel(x: 0, y: 0) == RGBA16Pixel(r: 255, g: 59, b: 48, a: 255))
        #expect(result.pixel(x: 1, y: 0) == RGBA16Pixel(r: 255, g: 59, b: 48, a: 128))
    }

    @Test(arguments: ["#f00", "#ff0000", "#FF0000ff", "red", "Red"])
    func colourParsing(text: String) {
        #expect(RGBAColor(parsing: text) == RGBAColor(red: 255, green: 0, blue: 0, alpha: 255))
    }

    @Test func colourParsingRejectsNonsense() {
        #expect(RGBAColor(parsing: "#12") == nil)
        #expect(RGBAColor(parsing: "#gggggg") == nil)
        #expect(RGBAColor(parsing: "notacolour") == nil)
        #expect(RGBAColor(parsing: "rebeccapurple") == RGBAColor(red: 0x66, green: 0x33, blue: 0x99))
    }

    /// The passes run in bands over the cores; the number of bands never changes a pixel. Big enough that both
    /// passes split (a million operations per band), with straight alpha and an aspect-fill crop.
    @Test func threadCountNeverChangesPixels() throws {
        var state: UInt32 = 12345
        let source = try image(1500, 1100) { x, y in
            state = state &* 1_664_525 &+ 1_013_904_223
            return [UInt8(truncatingIfNeeded: state >> 24), UInt8(x % 256), UInt8(y % 256), UInt8(128 + (x * y) % 128)]
        }
        let saved = ImageTransformers.Resize.maximumThreads
        defer { ImageTransformers.Resize.maximumThreads = saved }
        var results: [[UInt8]] = []
        for threads in [1, 2, 3, 8] {
            ImageTransformers.Resize.maximumThreads = threads
            let result = try ImageTransformers.Resize.resample(source, to: PixelSize(width: 700, height: 640), mode: .aspectFill)
            #expect((result.width, result.height) == (700, 640))
            results.append(result.bytes)
        }
        #expect(results.allSatisfy { $0 == results[0] })
    }
}
