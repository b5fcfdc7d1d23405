import Foundation
import PipelineHost
import Testing
import TestSupport

/// `pd:` (padding) and `ex:` (extend) in serve URLs, as imgproxy's: the border's size, its fill, and the canvas
/// ImageMagick's `-extent` makes from the same image.
@Suite(.serialized) struct ServePaddingTests {
    let root: String
    let coders: CodersManager

    init() throws {
        root = try TestPaths.temporaryDirectory("serve-padding")
        coders = try PluginSandbox.host(loading: ["libPNGCoder.so", "libJPEGCoder.so"]).coders
        var pixels: [UInt8] = []
        for y in 0..<120 { for x in 0..<200 { pixels += [UInt8(x), UInt8(y * 2), 90, 255] } }
        try TestFiles.write(try coders.encode(try Image(width: 200, height: 120, bytes: pixels), format: "png"), to: root + "/a.png")
    }

    private let source = "plain/local%3A%2F%2F%2Fa.png"

    @Test("pd: adds a CSS-order border, transparent unless bg: fills it; dpr: scales it; a padded result stays within --max-size")
    func padding() throws {
        let serve = try ServeProcess(["--root", root, "--max-size", "400"])
        let clear = try coders.decode(data: try serve.get(serve.signed("/s:50:30/pd:10/f:png/" + source)).body)
        #expect(clear.width == 70 && clear.height == 50)
        #expect(clear.pixel(x: 5, y: 5).a == 0 && clear.pixel(x: 35, y: 25).a == 255)
        let red = try coders.decode(data: try serve.get(serve.signed("/s:50:30/pd:1:2:3:4/bg:ff0000/f:png/" + source)).body)
        #expect(red.width == 50 + 2 + 4 && red.height == 30 + 1 + 3)
        #expect(red.pixel(x: 0, y: 10) == RGBA16Pixel(r: 255, g: 0, b: 0, a: 255) && red.pixel(x: 10, y: 0).r == 255)
        #expect(red.pixel(x: 5, y: 10).r != 255, "the image starts 4 px from the left")
        let scaled = try coders.decode(data: try serve.get(serve.signed("/s:50:30/pd:10/dpr:2/f:png/" + source)).body)
        #expect(scaled.width == 140 && scaled.height == 100)
        let bounded = try coders.decode(data: try serve.get(serve.signed("/w:400/up/pd:100/f:png/" + source)).body)
        #expect(max(bounded.width, bounded.height) <= 400, "\(bounded.width)x\(bounded.height)")
        let bad = try serve.get(serve.signed("/pd:1:2:3:4:5/" + source))
        #expect(bad.status == 400)
        #expect(serve.terminate() == 0)
    }

    @Test("ex:1 extends the fitted image to the asked size, pixel for pixel as ImageMagick's -gravity G -extent",
          arguments: [("ce", "center"), ("nowe", "northwest"), ("soea", "southeast")])
    func extendMatchesImageMagick(gravity: String, magick: String) throws {
        _ = try Skip.unlessTool("convert")  // MagickRGBA runs it
        let serve = try ServeProcess(["--root", root])
        let response = try serve.get(serve.signed("/rs:fit:300:300/ex:1:\(gravity)/f:png/" + source))
        #expect(response.status == 200)
        let ours = try coders.decode(data: response.body)
        let reference = try MagickRGBA.read(root + "/a.png", operations: ["-background", "none", "-gravity", magick, "-extent", "300x300"])
        #expect(ours.width == reference.width && ours.height == reference.height)
        var differing = 0
        for y in 0..<min(ours.height, reference.height) {
            for x in 0..<min(ours.width, reference.width) {
                let p = ours.pixel(x: x, y: y), i = (y * reference.width + x) * 4
                let q = reference.bytes[i..<i + 4].map { UInt16($0) }
                // Fully transparent pixels compare by alpha alone (their colour is not defined).
                if p.a == 0 && q[3] == 0 { continue }
                if [p.r, p.g, p.b, p.a] != q { differing += 1 }
            }
        }
        #expect(differing == 0, "\(differing) pixels differ for gravity \(gravity)")
        #expect(serve.terminate() == 0)
    }
}
