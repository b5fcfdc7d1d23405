import Foundation
import PipelineHost
import Testing
import TestSupport

/// `wm:` in serve URLs (imgproxy's `watermark`) with `serve --watermark FILE`, and the CLI's `--watermark` flags:
/// both draw the same pixels as the library's transformer, the mark comes from configuration only, and the
/// watermark is part of each result's cache identity.
@Suite(.serialized) struct WatermarkServeTests {
    let root: String
    let coders: CodersManager

    /// a.png: a 300x200 opaque gradient; mark.png: a 60x30 half-transparent red bar; other.png: a green one.
    init() throws {
        root = try TestPaths.temporaryDirectory("serve-watermark")
        coders = try PluginSandbox.host(loading: ["libPNGCoder.so", "libJPEGCoder.so"]).coders
        var pixels: [UInt8] = []
        for y in 0..<200 { for x in 0..<300 { pixels += [UInt8(x * 255 / 299), UInt8(y), 128, 255] } }
        try TestFiles.write(try coders.encode(try Image(width: 300, height: 200, alphaMode: .none, bytes: pixels), format: "png"), to: root + "/a.png")
        let bar = [UInt8]((0..<60 * 30).flatMap { _ in [255, 0, 0, 128] as [UInt8] })
        try TestFiles.write(try coders.encode(try Image(width: 60, height: 30, bytes: bar), format: "png"), to: root + "/mark.png")
        let green = [UInt8]((0..<60 * 30).flatMap { _ in [0, 255, 0, 255] as [UInt8] })
        try TestFiles.write(try coders.encode(try Image(width: 60, height: 30, bytes: green), format: "png"), to: root + "/other.png")
    }

    private let source = "plain/local%3A%2F%2F%2Fa.png"

    @Test("wm:OPACITY:POSITION:X:Y:SCALE draws the service's mark where imgproxy would, equal to the CLI's --watermark")
    func serveDrawsTheMark() throws {
        let serve = try ServeProcess(["--root", root, "--watermark", root + "/mark.png", "--preset", "marked=wm:1:nowe:0:0"])
        func get(_ options: String) throws -> (Image, String) { try serve.png(options, of: source, coders: coders) }
        let (plain, plainTag) = try get("s:300:200")
        let (marked, markedTag) = try get("s:300:200/wm:1:soea:10:20")
        #expect(markedTag != plainTag)
        // The bar spans x 230..<290, y 150..<180 (10 px from the right, 20 from the bottom): red over the gradient.
        let inside = marked.pixel(x: 260, y: 165), outside = marked.pixel(x: 260, y: 140), under = plain.pixel(x: 260, y: 165)
        #expect(abs(Int(inside.r) - (255 * 128 + Int(under.r) * 127) / 255) <= 1 && inside.g < under.g, "\(inside) over \(under)")
        #expect(outside == plain.pixel(x: 260, y: 140) && marked.pixel(x: 225, y: 165) == plain.pixel(x: 225, y: 165))
        // Repeat covers the whole image; scale fits the mark in a fraction of the result.
        let (tiled, _) = try get("s:300:200/wm:1:re:0:0")
        #expect(tiled.pixel(x: 5, y: 5).r > plain.pixel(x: 5, y: 5).r && tiled.pixel(x: 295, y: 195).r > plain.pixel(x: 295, y: 195).r)
        let (scaled, _) = try get("s:300:200/wm:1:nowe:0:0:0.5")
        #expect(scaled.pixel(x: 140, y: 60).r > plain.pixel(x: 140, y: 60).r && scaled.pixel(x: 160, y: 60) == plain.pixel(x: 160, y: 60),
                "a 150x75 mark at the top left")
        let (preset, _) = try get("s:300:200/pr:marked")
        #expect(preset.pixel(x: 30, y: 15).r > plain.pixel(x: 30, y: 15).r)
        let (off, offTag) = try get("s:300:200/wm:0:ce")
        #expect(offTag == plainTag && off.pixel(x: 150, y: 100) == plain.pixel(x: 150, y: 100), "opacity 0 is no watermark")
        for bad in ["wm:2", "wm:1:middle", "wm:1:ce:x", "wm:1:ce:0:0:3"] {
            #expect(try serve.get(serve.signed("/" + bad + "/" + source)).status == 400, "\(bad)")
        }
        #expect(serve.terminate() == 0)

        // The CLI's flags give the same pixels.
        let out = root + "/cli.png"
        let run = try CommandLine.run(TestPaths.imagepipeBinary, ["render", root + "/a.png", "-o", out, "--watermark", root + "/mark.png",
                                                                  "--watermark-position", "soea", "--watermark-offset", "10,20",
                                                                  "--plugin-dir", TestPaths.pluginsDirectory])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(ImageComparison.psnr(try coders.decode(data: try TestFiles.read(out)), marked) == .infinity)
    }

    @Test("without --watermark, wm: is 400; a different mark file is a different result; a bad mark stops serve at start")
    func markComesFromConfiguration() throws {
        let bare = try ServeProcess(["--root", root])
        let refused = try bare.get(bare.signed("/wm:1:ce/" + source))
        #expect(refused.status == 400 && String(decoding: refused.body, as: UTF8.self).contains("--watermark"))
        #expect(bare.terminate() == 0)
        var tags: [String] = []
        for mark in ["mark.png", "other.png"] {
            let serve = try ServeProcess(["--root", root, "--watermark", root + "/" + mark])
            let response = try serve.get(serve.signed("/s:300:200/wm:1:ce/f:png/" + source))
            #expect(response.status == 200)
            tags.append(response.headers["etag"] ?? "")
            #expect(serve.terminate() == 0)
        }
        #expect(tags[0] != tags[1], "the mark's bytes are part of the result's identity")
        let bad = try CommandLine.run(TestPaths.imagepipeBinary, ["serve", "--allow-unsigned", "--root", root, "--watermark", root + "/missing.png",
                                                                  "--plugin-dir", TestPaths.pluginsDirectory])
        #expect(bad.status != 0 && bad.stderr.contains("--watermark"), "\(bad.stderr)")
    }

    @Test("CLI watermark flags: placement without a file, bad positions, opacities and scales are usage errors")
    func cliUsage() throws {
        for extra in [["--watermark-opacity", "0.5"], ["--watermark", root + "/mark.png", "--watermark-position", "middle"],
                      ["--watermark", root + "/mark.png", "--watermark-opacity", "1.5"], ["--watermark", root + "/mark.png", "--watermark-scale", "0"],
                      ["--watermark", root + "/mark.png", "--watermark-offset", "3"]] {
            let run = try CommandLine.run(TestPaths.imagepipeBinary, ["render", root + "/a.png", "-o", root + "/x.png", "--plugin-dir", TestPaths.pluginsDirectory] + extra)
            #expect(run.status == 2 && run.stderr.contains("--watermark"), "\(extra): \(run.stderr)")
        }
    }
}
