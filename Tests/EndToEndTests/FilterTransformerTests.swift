import Foundation
import PipelineHost
import Testing
import TestSupport

/// Blur, sharpen, rounded corners, circle, gravity crops and gravity resizes against ImageMagick on the same
/// decoded PNG, with the tolerances each test states (filters and anti-aliasing are not specified to the bit).
@Suite("Transformers: filters, shapes and gravity")
struct FilterTransformerTests {
    /// An opaque 61x43 picture with hard edges (a blur and a sharpen show there) and its decode.
    private static func fixture(alpha: Bool = false, smooth: Bool = false) throws -> (path: String, image: Image, folder: String)? {
        let convert = try Skip.unlessTool("convert")
        let folder = try TestPaths.temporaryDirectory("filters")
        let path = folder + "/in.png"
        var arguments = ["-size", "61x43", "gradient:orange-navy", "-fill", "white", "-draw", "rectangle 10,8 30,30",
                         "-fill", "black", "-draw", "rectangle 35,5 50,38", "-fill", "red", "-draw", "line 0,42 60,0"]
        if smooth { arguments = ["-size", "43x61", "gradient:orange-navy", "-rotate", "90", "(", "-size", "61x43", "gradient:white-black", ")",
                                 "-compose", "Multiply", "-composite"] }
        if alpha { arguments += ["-alpha", "set", "-channel", "A", "-evaluate", "set", "60%", "+channel"] }
        let made = try CommandLine.run(convert, arguments + ["PNG32:" + path])
        guard made.status == 0 else { throw TestSupportError("convert: \(made.stderr)") }
        let host = try PluginSandbox.host(loading: ["libPNGCoder.so"])
        return (path, try host.coders.decode(data: try TestFiles.read(path)), folder)
    }

    /// Mean and largest absolute difference over the samples of `channels` (0...3), or nil if the sizes differ.
    private static func difference(_ image: Image, _ reference: MagickRGBA, channels: Set<Int> = [0, 1, 2, 3]) -> (mean: Double, max: Int)? {
        guard image.width == reference.width, image.height == reference.height else { return nil }
        var total = 0, largest = 0, count = 0
        for (index, (a, b)) in zip(image.bytes, reference.bytes).enumerated() where channels.contains(index % 4) {
            let d = abs(Int(a) - Int(b))
            total += d; largest = max(largest, d); count += 1
        }
        return (Double(total) / Double(max(1, count)), largest)
    }

    @Test("Gaussian blur matches ImageMagick's -blur 0xσ (mean ≤ 0.5, max ≤ 3 levels) at σ 0.5, 0.8, 2 and 5")
    func blurMatchesImageMagick() throws {
        guard let (path, image, folder) = try Self.fixture() else { return }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for sigma in [0.5, 0.8, 2, 5] {
            let ours = try ImageTransformers.GaussianBlur(sigma: sigma).transform(image)
            let reference = try MagickRGBA.read(path, operations: ["-blur", "0x\(sigma)"])
            let d = try #require(Self.difference(ours, reference))
            #expect(d.mean <= 0.5 && d.max <= 3, "sigma \(sigma): mean \(d.mean), max \(d.max)")
        }
    }

    @Test("a blur of translucent pixels lends no colour from invisible ones (premultiplied): no dark fringe")
    func blurHasNoDarkFringe() throws {
        // White opaque square on transparent black: straight-alpha filtering would darken the square's edge.
        var pixels: [UInt8] = []
        for y in 0..<20 { for x in 0..<20 { pixels += (5..<15).contains(x) && (5..<15).contains(y) ? [255, 255, 255, 255] : [0, 0, 0, 0] } }
        let image = try Image(width: 20, height: 20, bytes: pixels)
        let blurred = try ImageTransformers.GaussianBlur(sigma: 2).transform(image)
        for y in 0..<20 { for x in 0..<20 where blurred.pixel(x: x, y: y).a > 8 {
            #expect(blurred.pixel(x: x, y: y).r >= 250, "(\(x), \(y)): \(blurred.pixel(x: x, y: y))")
        } }
    }

    @Test("sharpen matches ImageMagick's -unsharp 0x0.5+1+0 (mean ≤ 0.5, max ≤ 4 levels)")
    func sharpenMatchesImageMagick() throws {
        guard let (path, image, folder) = try Self.fixture() else { return }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let ours = try ImageTransformers.Sharpen().transform(image)
        let reference = try MagickRGBA.read(path, operations: ["-unsharp", "0x0.5+1+0"])
        let d = try #require(Self.difference(ours, reference))
        #expect(d.mean <= 0.5 && d.max <= 4, "mean \(d.mean), max \(d.max)")
        #expect(ours.bytes != image.bytes)
    }

    /// The alpha of a shape as the exact area of each pixel inside it, by 32 × 32 samples (an independent
    /// restatement of the geometry, not the transformer's code).
    private static func exactAlpha(width: Int, height: Int, inside: (Double, Double) -> Bool) -> [Int] {
        (0..<height).flatMap { y in
            (0..<width).map { x in
                var count = 0
                for sy in 0..<32 { for sx in 0..<32 where inside(Double(x) + (Double(sx) + 0.5) / 32, Double(y) + (Double(sy) + 0.5) / 32) { count += 1 } }
                return (count * 255 + 512) / 1024
            }
        }
    }

    private static func alphaDifference(_ image: Image, _ reference: [Int]) -> (mean: Double, max: Int) {
        let alphas = stride(from: 3, to: image.bytes.count, by: 4).map { Int(image.bytes[$0]) }
        let d = zip(alphas, reference).map { abs($0 - $1) }
        return (Double(d.reduce(0, +)) / Double(max(1, d.count)), d.max() ?? 0)
    }

    @Test("rounded corners and circle: alpha is the area inside the shape (max 8, mean ≤ 0.2 levels), and close to ImageMagick's drawing")
    func shapesAreAntialiasedByArea() throws {
        guard let (path, image, folder) = try Self.fixture() else { return }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let w = image.width, h = image.height, r = 12.0
        let rounded = try ImageTransformers.RoundedCorners(radius: r).transform(image)
        let roundedExact = Self.exactAlpha(width: w, height: h) { x, y in
            let cx = min(max(x, r), Double(w) - r), cy = min(max(y, r), Double(h) - r)
            return (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r
        }
        let d1 = Self.alphaDifference(rounded, roundedExact)
        #expect(d1.mean <= 0.2 && d1.max <= 8, "rounded: mean \(d1.mean), max \(d1.max)")
        #expect(rounded.pixel(x: w / 2, y: h / 2) == image.pixel(x: w / 2, y: h / 2), "colour untouched inside")
        #expect(rounded.pixel(x: 0, y: 0).a == 0 && rounded.pixel(x: 12, y: 0).a == 255)

        let circle = try ImageTransformers.Circle().transform(image)
        #expect(circle.width == h && circle.height == h)
        let c = Double(h) / 2
        let circleExact = Self.exactAlpha(width: h, height: h) { x, y in (x - c) * (x - c) + (y - c) * (y - c) <= c * c }
        let d2 = Self.alphaDifference(circle, circleExact)
        #expect(d2.mean <= 0.2 && d2.max <= 8, "circle: mean \(d2.mean), max \(d2.max)")
        #expect(circle.pixel(x: h / 2, y: h / 2) == image.pixel(x: (w - h) / 2 + h / 2, y: h / 2))

        // ImageMagick's -draw fills about half a pixel beyond the geometric edge (its radius-21.5 circle covers
        // pixels wholly outside the circle), so it is a loose reference: the same shape, mean within 6 levels
        // (measured 5.5, all of it on the rim).
        let drawn = try MagickRGBA.read(path, operations: [
            "-gravity", "center", "-crop", "\(h)x\(h)+0+0", "+repage",
            "(", "+clone", "-alpha", "transparent", "-fill", "white", "-draw", "circle \(c - 0.5),\(c - 0.5) \(c - 0.5 + c),\(c - 0.5)",
            ")", "-compose", "DstIn", "-composite"])
        let magick = Self.alphaDifference(circle, stride(from: 3, to: drawn.bytes.count, by: 4).map { Int(drawn.bytes[$0]) })
        #expect(magick.mean <= 6, "circle vs ImageMagick: mean \(magick.mean), max \(magick.max)")
    }

    @Test("gravity crops (size and aspect ratio) take exactly ImageMagick's -gravity G -crop region")
    func gravityCropsMatchImageMagick() throws {
        guard let (path, image, folder) = try Self.fixture() else { return }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let compass: [Gravity: String] = [.center: "Center", .top: "North", .bottom: "South", .left: "West", .right: "East",
                                          .topLeft: "NorthWest", .topRight: "NorthEast", .bottomLeft: "SouthWest", .bottomRight: "SouthEast"]
        for (gravity, name) in compass {
            let ours = try ImageTransformers.Crop(size: PixelSize(width: 20, height: 14), gravity: gravity).transform(image)
            let reference = try MagickRGBA.read(path, operations: ["-gravity", name, "-crop", "20x14+0+0", "+repage"])
            #expect(Self.difference(ours, reference)?.max == 0, "\(gravity)")
            // 16:9 of 61x43 is 61x34 (34.3 rounded); 1:1 is 43x43.
            let wide = try ImageTransformers.Crop(aspectRatio: 16, 9, gravity: gravity).transform(image)
            let wideReference = try MagickRGBA.read(path, operations: ["-gravity", name, "-crop", "61x34+0+0", "+repage"])
            #expect(Self.difference(wide, wideReference)?.max == 0, "16:9 \(gravity)")
            let square = try ImageTransformers.Crop(aspectRatio: 1, 1, gravity: gravity).transform(image)
            let squareReference = try MagickRGBA.read(path, operations: ["-gravity", name, "-crop", "43x43+0+0", "+repage"])
            #expect(Self.difference(square, squareReference)?.max == 0, "1:1 \(gravity)")
        }
    }

    @Test("aspect-fill with gravity keeps the named side, as ImageMagick's -resize WxH^ -gravity G -extent WxH (mean ≤ 3 levels)")
    func gravityResizeMatchesImageMagick() throws {
        // Smooth content: ImageMagick's -extent cuts at whole pixels where the resampler places to a fraction, so hard
        // edges would measure that placement, not the gravity.
        guard let (path, image, folder) = try Self.fixture(smooth: true) else { return }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (gravity, name) in [(Gravity.left, "West"), (.right, "East"), (.center, "Center")] {
            let ours = try ImageTransformers.ResizeTo(size: PixelSize(width: 16, height: 16), mode: .aspectFill, gravity: gravity).transform(image)
            let reference = try MagickRGBA.read(path, operations: ["-resize", "16x16^", "-gravity", name, "-extent", "16x16"])
            let d = try #require(Self.difference(ours, reference, channels: [0, 1, 2]))
            #expect(d.mean <= 3, "\(gravity): mean \(d.mean), max \(d.max)")
        }
        // The two sides differ (the black bar is on the right): left and right gravity must not give the same pixels.
        let left = try ImageTransformers.ResizeTo(size: PixelSize(width: 16, height: 16), mode: .aspectFill, gravity: .left).transform(image)
        let right = try ImageTransformers.ResizeTo(size: PixelSize(width: 16, height: 16), mode: .aspectFill, gravity: .right).transform(image)
        #expect(left.bytes != right.bytes)
    }

    @Test("every transformer keeps 16-bit images 16-bit and handles translucent input")
    func sixteenBitAndAlpha() throws {
        guard let (_, image, folder) = try Self.fixture(alpha: true) else { return }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let wide = try Image(width: image.width, height: image.height, pixelFormat: .rgba16,
                         bytes: image.bytes.flatMap { [$0, $0] })  // v * 257, native-endian halves alike
        let transformers: [any ImageTransforming] = [
            ImageTransformers.GaussianBlur(sigma: 1.5), ImageTransformers.Sharpen(), ImageTransformers.RoundedCorners(radius: 6),
            ImageTransformers.Circle(), ImageTransformers.Crop(aspectRatio: 4, 3), ImageTransformers.ResizeTo(size: PixelSize(width: 20, height: 20), mode: .aspectFill, gravity: .top),
        ]
        for transformer in transformers {
            let narrow = try transformer.transform(image), deep = try transformer.transform(wide)
            #expect(deep.pixelFormat == .rgba16 && narrow.pixelFormat == .rgba8)
            #expect(deep.width == narrow.width && deep.height == narrow.height)
            // The 16-bit result, reduced to 8 bits, is within 1 level of the 8-bit result.
            var largest = 0
            for y in 0..<deep.height { for x in 0..<deep.width {
                let a = narrow.pixel(x: x, y: y), b = deep.pixel(x: x, y: y)
                guard a.a > 16 else { continue }
                largest = max(largest, abs(Int(a.r) - (Int(b.r) + 128) / 257), abs(Int(a.a) - (Int(b.a) + 128) / 257))
            } }
            #expect(largest <= 2, "\(transformer.identifier): \(largest)")
        }
    }
}
