import Foundation
import PipelineHost
import Testing
import TestSupport

/// Watermarks: where the mark lands, how it blends and at what size, against ImageMagick's `-composite` (its Over
/// operator, the mark's alpha scaled for the opacity) on the same files, and an SVG mark against rsvg-convert's
/// rendering at the drawn size.
@Suite struct WatermarkTests {
    let folder: String
    let coders: CodersManager

    init() throws {
        folder = try TestPaths.temporaryDirectory("watermark")
        coders = try PluginSandbox.host(loading: ["libPNGCoder.so", "libSVGCoder.so"]).coders
    }

    /// A 400x300 opaque gradient with detail, and an 80x40 mark with soft, partly transparent shapes.
    private func files() throws -> (base: String, mark: String) {
        var base: [UInt8] = [], mark: [UInt8] = []
        for y in 0..<300 { for x in 0..<400 { base += [UInt8(x * 255 / 399), UInt8(y * 255 / 299), UInt8((x * y / 7) & 0xff), 255] } }
        for y in 0..<40 {
            for x in 0..<80 {
                let d = Double((x - 20) * (x - 20) + (y - 20) * (y - 20)).squareRoot()
                let disc = max(0, min(1, 15 - d))  // an anti-aliased disc of radius 15
                let box = x >= 44 && x < 76 && y >= 6 && y < 34 ? 0.55 : 0
                let a = disc + box * (1 - disc)
                mark += a == 0 ? [0, 0, 0, 0] : [UInt8(230 * disc / a), 20, UInt8(200 * box * (1 - disc) / a), UInt8((a * 255).rounded())]
            }
        }
        let paths = (folder + "/base.png", folder + "/mark.png")
        try TestFiles.write(try coders.encode(try Image(width: 400, height: 300, alphaMode: .none, bytes: base), format: "png"), to: paths.0)
        try TestFiles.write(try coders.encode(try Image(width: 80, height: 40, bytes: mark), format: "png"), to: paths.1)
        return paths
    }

    private func ours(_ base: String, _ watermark: ImageTransformers.Watermark) throws -> Image {
        try coders.decode(data: try TestFiles.read(base), options: DecodeOptions(), transformers: [watermark])
    }

    private func psnr(_ image: Image, _ reference: MagickRGBA) throws -> Double {
        try #require(image.width == reference.width && image.height == reference.height, "\(image.width)x\(image.height) vs \(reference.width)x\(reference.height)")
        return ImageComparison.psnr(image, try Image(width: reference.width, height: reference.height, bytes: reference.bytes), includingAlpha: false)
    }

    @Test("a mark at a gravity with offsets and opacity equals ImageMagick's -gravity G -geometry +X+Y -composite",
          arguments: [("bottom-right", "southeast", 0.5), ("center", "center", 1.0), ("top-left", "northwest", 0.8), ("right", "east", 0.3)])
    func placedLikeImageMagick(gravity: String, magick: String, opacity: Double) throws {
        _ = try Skip.unlessTool("convert")
        let (base, markPath) = try files()
        let mark = try WatermarkImage(data: try TestFiles.read(markPath), coders: coders)
        let image = try ours(base, ImageTransformers.Watermark(mark, opacity: opacity, placement: .gravity(Gravity(rawValue: gravity)!), offsetX: 10, offsetY: 6))
        #expect(!image.hasAlpha, "an opaque image stays opaque")
        let reference = try MagickRGBA.read(base, operations: [
            "(", markPath, "-alpha", "on", "-channel", "A", "-evaluate", "multiply", String(opacity), "+channel", ")",
            "-gravity", magick, "-geometry", "+10+6", "-compose", "over", "-composite"])
        let quality = try psnr(image, reference)
        #expect(quality >= 50, "PSNR \(quality) dB at \(gravity)")
        #expect(ImageComparison.psnr(image, try coders.decode(data: try TestFiles.read(base))) < 45, "the mark is drawn at all")
    }

    @Test("a repeated mark tiles from the top-left corner with the offsets as spacing, as ImageMagick's tile: pattern")
    func repeatedLikeImageMagickTiles() throws {
        _ = try Skip.unlessTool("convert")
        let (base, markPath) = try files()
        let mark = try WatermarkImage(data: try TestFiles.read(markPath), coders: coders)
        let image = try ours(base, ImageTransformers.Watermark(mark, opacity: 0.7, placement: .repeated, offsetX: 12, offsetY: 8))
        let tile = folder + "/tile.png"
        let convert = try Skip.unlessTool("convert")
        let made = try CommandLine.run(convert, [markPath, "-background", "none", "-gravity", "northwest", "-extent", "92x48",
                                                 "-channel", "A", "-evaluate", "multiply", "0.7", "+channel", tile])
        try #require(made.status == 0, "\(made.stderr)")
        // ImageMagick's tile: coder drops the tile's alpha; a transparent canvas filled with the tile keeps it.
        let reference = try MagickRGBA.read(base, operations: ["(", "-size", "400x300", "xc:none", "-fill", tile, "-draw", "color 0,0 reset", ")",
                                                              "-compose", "over", "-composite"])
        let quality = try psnr(image, reference)
        #expect(quality >= 50, "PSNR \(quality) dB")
    }

    @Test("an SVG mark is rendered at the drawn size (as rsvg-convert renders it there), not scaled up from its own size")
    func vectorMarkRenderedAtSize() throws {
        let convert = try Skip.unlessTool("convert")
        let rsvg = try Skip.unlessTool("rsvg-convert")
        let (base, _) = try files()
        let svg = folder + "/mark.svg"
        try Data("""
            <svg xmlns="http://www.w3.org/2000/svg" width="40" height="20" viewBox="0 0 40 20"><circle cx="10" cy="10" r="8" \
            fill="#e01010" fill-opacity="0.8"/><rect x="22" y="3" width="15" height="14" fill="#1010e0" fill-opacity="0.6"/>\
            <path d="M2 18 L38 2" stroke="#000" stroke-width="0.7"/></svg>
            """.utf8).write(to: URL(fileURLWithPath: svg))
        let mark = try WatermarkImage(data: try TestFiles.read(svg), coders: coders)
        #expect(mark.isVector && mark.size == PixelSize(width: 40, height: 20))
        // Scale 0.5 of 400x300: a 200x150 box, the 2:1 mark fits at 200x100.
        let image = try ours(base, ImageTransformers.Watermark(mark, placement: .gravity(.topRight), offsetX: 8, offsetY: 8, scale: 0.5))
        let atSize = folder + "/at-size.png", upscaled = folder + "/upscaled.png", own = folder + "/own.png"
        try #require(try CommandLine.run(rsvg, ["-w", "200", "-h", "100", svg, "-o", atSize]).status == 0)
        try #require(try CommandLine.run(rsvg, [svg, "-o", own]).status == 0)
        try #require(try CommandLine.run(convert, [own, "-resize", "200x100", upscaled]).status == 0)
        func composited(_ markFile: String) throws -> MagickRGBA {
            try MagickRGBA.read(base, operations: [markFile, "-gravity", "northeast", "-geometry", "+8+8", "-compose", "over", "-composite"])
        }
        let sharp = try psnr(image, try composited(atSize)), blurry = try psnr(image, try composited(upscaled))
        #expect(sharp >= 45, "against rsvg-convert at 200x100: \(sharp) dB")
        #expect(blurry < sharp - 10, "closer to a raster upscale (\(blurry) dB) than it should be (\(sharp) dB)")
    }

    @Test("opacity 0 changes nothing; alpha images blend as Over; the mark's file and every parameter are in the key")
    func identityAndAlpha() throws {
        let (base, markPath) = try files()
        let mark = try WatermarkImage(data: try TestFiles.read(markPath), coders: coders)
        let plain = try coders.decode(data: try TestFiles.read(base))
        #expect(ImageComparison.psnr(try ours(base, ImageTransformers.Watermark(mark, opacity: 0)), plain) == .infinity)
        // A fully transparent image under the mark: the result is the mark itself (straight colour, its alpha).
        let clear = try Image(width: 80, height: 40, bytes: [UInt8](repeating: 0, count: 80 * 40 * 4))
        let drawn = try ImageTransformers.Watermark(mark).transform(clear)
        let alone = try coders.decode(data: try TestFiles.read(markPath))
        #expect(drawn.hasAlpha && drawn.pixel(x: 20, y: 20).a == alone.pixel(x: 20, y: 20).a && drawn.pixel(x: 60, y: 20) == alone.pixel(x: 60, y: 20))
        #expect(drawn.pixel(x: 2, y: 2).a == 0)
        let keys = Set([ImageTransformers.Watermark(mark), ImageTransformers.Watermark(mark, opacity: 0.5),
                        ImageTransformers.Watermark(mark, placement: .repeated), ImageTransformers.Watermark(mark, offsetX: 1),
                        ImageTransformers.Watermark(mark, scale: 0.2)].map(\.identifier))
        #expect(keys.count == 5)
        let other = try WatermarkImage(data: try coders.encode(try Image(width: 2, height: 2, bytes: [UInt8](repeating: 9, count: 16)), format: "png"), coders: coders)
        #expect(ImageTransformers.Watermark(other).identifier != ImageTransformers.Watermark(mark).identifier)
        #expect(throws: PipelineError.self) { try WatermarkImage(data: Array("not an image".utf8), coders: coders) }
    }
}
