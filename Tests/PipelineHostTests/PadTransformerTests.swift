import PipelineHost
import Testing

/// `ImageTransformers.Pad`: borders and extension as the stored pixels show them, for each pixel layout.
@Suite struct PadTransformerTests {
    private static func image(_ format: PixelFormat, alpha: AlphaMode, width: Int = 4, height: Int = 3) throws -> Image {
        let sample = format == .rgba8 ? 1 : 2
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                for value in [UInt8(10 + x), UInt8(20 + y), 30, alpha == .none ? 255 : 200] {
                    bytes += sample == 1 ? [value] : [value, value]  // 16-bit: value * 257, either byte order
                }
            }
        }
        return try Image(width: width, height: height, pixelFormat: format, alphaMode: alpha, bytes: bytes)
    }

    @Test("a CSS-order border: transparent without a fill, the source's pixels moved whole, opaque sources gain alpha 255",
          arguments: [PixelFormat.rgba8, .rgba16])
    func transparentBorder(format: PixelFormat) throws {
        let source = try Self.image(format, alpha: .none)
        let out = try ImageTransformers.Pad(.border(top: 1, right: 2, bottom: 3, left: 4)).transform(source)
        #expect(out.width == 4 + 2 + 4 && out.height == 3 + 1 + 3)
        #expect(out.alphaMode == .straight && out.pixelFormat == format)
        let scale: UInt16 = format == .rgba8 ? 1 : 257
        for y in 0..<out.height {
            for x in 0..<out.width {
                let inside = (4..<8).contains(x) && (1..<4).contains(y)
                let expected = inside
                    ? RGBA16Pixel(r: UInt16(10 + x - 4) * scale, g: UInt16(20 + y - 1) * scale, b: 30 * scale, a: 255 * scale)
                    : RGBA16Pixel(r: 0, g: 0, b: 0, a: 0)
                #expect(out.pixel(x: x, y: y) == expected, "(\(x), \(y))")
            }
        }
    }

    @Test("an opaque fill keeps an opaque image without alpha; premultiplied images get the fill premultiplied")
    func fills() throws {
        let red = RGBAColor(red: 255, green: 0, blue: 0)
        let opaque = try ImageTransformers.Pad(.border(top: 1, right: 1, bottom: 1, left: 1), fill: red).transform(try Self.image(.rgba8, alpha: .none))
        #expect(opaque.alphaMode == .none && opaque.pixel(x: 0, y: 0) == RGBA16Pixel(r: 255, g: 0, b: 0, a: 255))
        let halfRed = RGBAColor(red: 255, green: 0, blue: 0, alpha: 128)
        let premultiplied = try ImageTransformers.Pad(.border(top: 0, right: 1, bottom: 0, left: 0), fill: halfRed)
            .transform(try Self.image(.rgba16, alpha: .premultiplied))
        #expect(premultiplied.alphaMode == .premultiplied)
        #expect(premultiplied.pixel(x: 4, y: 0) == RGBA16Pixel(r: 128 * 257, g: 0, b: 0, a: 128 * 257))
        #expect(premultiplied.pixel(x: 3, y: 2) == RGBA16Pixel(r: 13 * 257, g: 22 * 257, b: 30 * 257, a: 200 * 257))
    }

    @Test("extend places the image by gravity, keeps a side already larger, and is a no-op at the image's size")
    func extend() throws {
        let source = try Self.image(.rgba8, alpha: .straight, width: 6, height: 2)
        let topRight = try ImageTransformers.Pad(.extend(to: PixelSize(width: 4, height: 5), gravity: .topRight)).transform(source)
        #expect(topRight.width == 6 && topRight.height == 5)
        #expect(topRight.pixel(x: 0, y: 0) == RGBA16Pixel(r: 10, g: 20, b: 30, a: 200))
        #expect(topRight.pixel(x: 0, y: 2).a == 0)
        let centred = try ImageTransformers.Pad(.extend(to: PixelSize(width: 10, height: 6), gravity: .center)).transform(source)
        #expect(centred.pixel(x: 2, y: 2) == RGBA16Pixel(r: 10, g: 20, b: 30, a: 200))
        #expect(centred.pixel(x: 1, y: 2).a == 0 && centred.pixel(x: 2, y: 1).a == 0 && centred.pixel(x: 8, y: 2).a == 0)
        let same = try ImageTransformers.Pad(.extend(to: PixelSize(width: 6, height: 2), gravity: .center)).transform(source)
        #expect(same.width == 6 && same.pixel(x: 5, y: 1) == source.pixel(x: 5, y: 1))
    }
}
