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

    @Test("rs:auto fills when the source and the box share an orientation and fits otherwise, as imgproxy's auto",
          arguments: ["a.png", "a.jpg"])
    func autoResizingType(file: String) throws {
        try TestFiles.write(try coders.encode(try coders.decode(data: try TestFiles.read(root + "/a.png")), format: "jpg"), to: root + "/a.jpg")
        let serve = try ServeProcess(["--root", root])
        func size(_ options: String) throws -> (Int, Int) {
            let response = try serve.get(serve.signed("/" + options + "/f:png/plain/local%3A%2F%2F%2F" + file))
            #expect(response.status == 200)
            let image = try coders.decode(data: response.body)
            return (image.width, image.height)
        }
        // The source is 200x120, landscape.
        #expect(try size("rs:auto:100:100") == (100, 100), "a square box counts as landscape: filled")
        #expect(try size("rs:auto:120:60") == (120, 60))
        #expect(try size("rs:auto:60:120") == (60, 36), "a portrait box: fitted")
        #expect(try size("rt:auto/s:60:120") == (60, 36))
        #expect(try size("rt:auto/rt:fill/s:60:120") == (60, 120), "a later type replaces auto")
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

/// `g:sm`, `g:entropy` and `g:fp:X:Y` in serve URLs and `--gravity attention` / `--focus X,Y` in the CLI: the window
/// an aspect-fill or a crop keeps follows the subject.
@Suite(.serialized) struct SmartCropServeTests {
    let root: String
    let coders: CodersManager
    /// 400x200: a flat grey field with a skin-toned disc centred at (340, 60).
    init() throws {
        root = try TestPaths.temporaryDirectory("serve-smart-crop")
        coders = try PluginSandbox.host(loading: ["libPNGCoder.so", "libJPEGCoder.so"]).coders
        var pixels: [UInt8] = []
        for y in 0..<200 {
            for x in 0..<400 {
                pixels += (x - 340) * (x - 340) + (y - 60) * (y - 60) < 30 * 30 ? [0xd9, 0xa0, 0x7a, 255] : [120, 120, 120, 255]
            }
        }
        let png = try coders.encode(try Image(width: 400, height: 200, bytes: pixels), format: "png")
        try TestFiles.write(png, to: root + "/subject.png")
        try TestFiles.write(try coders.encode(try Image(width: 400, height: 200, bytes: pixels), format: "jpg"), to: root + "/subject.jpg")
    }

    /// Whether the disc's colour is in the image (channel distance at most 12).
    private func showsTheDisc(_ image: Image) -> Bool {
        for y in stride(from: 0, to: image.height, by: 2) {
            for x in stride(from: 0, to: image.width, by: 2) {
                let p = image.pixel(x: x, y: y)
                if abs(Int(p.r) - 0xd9) <= 12, abs(Int(p.g) - 0xa0) <= 12, abs(Int(p.b) - 0x7a) <= 12 { return true }
            }
        }
        return false
    }

    @Test("aspect-fill and crops keep the subject with g:sm, g:entropy and g:fp; the centre does not; each is its own result",
          arguments: ["subject.png", "subject.jpg"])
    func smartCropKeepsTheSubject(file: String) throws {
        let serve = try ServeProcess(["--root", root])
        let source = "plain/local%3A%2F%2F%2F" + file
        func get(_ options: String) throws -> (Image, String) { try serve.png(options, of: source, coders: coders) }
        let (centre, centreTag) = try get("rs:fill:100:100")
        #expect(centre.width == 100 && centre.height == 100 && !showsTheDisc(centre))
        for gravity in ["g:sm", "g:entropy", "g:fp:0.85:0.3"] {
            let (kept, tag) = try get("rs:fill:100:100/" + gravity)
            #expect(kept.width == 100 && kept.height == 100 && showsTheDisc(kept), "\(file) \(gravity)")
            #expect(tag != centreTag, "\(gravity) has its own cache entry")
        }
        let (box, _) = try get("c:80:80/g:sm")
        #expect(box.width == 80 && box.height == 80 && showsTheDisc(box))
        // crop:W:H:GRAVITY places the box by its own gravity, whatever g: says.
        let (ownSmart, _) = try get("c:80:80:sm")
        #expect(ownSmart.width == 80 && showsTheDisc(ownSmart))
        let (corner, _) = try get("c:80:80:noea/g:sowe")
        #expect(corner.width == 80 && showsTheDisc(corner), "the top-right box holds the disc")
        let (otherCorner, _) = try get("c:80:80:nowe/g:sm")
        #expect(otherCorner.width == 80 && !showsTheDisc(otherCorner))
        #expect(try serve.get(serve.signed("/c:80:80:middle/" + source)).status == 400)
        let (later, _) = try get("g:sm/g:ce/rs:fill:100:100")
        #expect(!showsTheDisc(later), "a later gravity replaces the smart crop")
        #expect(try serve.get(serve.signed("/g:fp:2:0/" + source)).status == 400)
        #expect(try serve.get(serve.signed("/g:fp:0.5/" + source)).status == 400)
        #expect(serve.terminate() == 0)
    }

    @Test("render --gravity attention and --focus X,Y keep the subject; bad values are usage errors")
    func cliSmartCrop() throws {
        func render(_ extra: [String]) throws -> (ProcessResult, Image?) {
            let out = root + "/out.png"
            let run = try CommandLine.run(TestPaths.imagepipeBinary, ["render", root + "/subject.png", "-o", out, "--size", "100x100",
                                                                      "--mode", "aspect-fill", "--plugin-dir", TestPaths.pluginsDirectory] + extra)
            return (run, run.status == 0 ? try coders.decode(data: try TestFiles.read(out)) : nil)
        }
        for extra in [["--gravity", "attention"], ["--gravity", "smart"], ["--gravity", "entropy"], ["--focus", "0.85,0.3"]] {
            let (run, image) = try render(extra)
            #expect(run.status == 0 && image.map(showsTheDisc) == true, "\(extra): \(run.stderr)")
        }
        #expect(try render([]).1.map(showsTheDisc) == false)
        for extra in [["--focus", "2,0"], ["--focus", "0.5"], ["--focus", "0.5,0.5", "--gravity", "top"]] {
            let (run, _) = try render(extra)
            #expect(run.status == 2 && run.stderr.contains("--focus"), "\(extra): \(run.stderr)")
        }
    }
}
