import Foundation
import PipelineHost
import Testing
import TestSupport

/// `serve --preset`, `--presets FILE`, `pr:NAME` and `--only-presets`, as a client and an operator see them.
@Suite(.serialized) struct ServePresetTests {
    let root: String
    let coders: CodersManager

    init() throws {
        root = try TestPaths.temporaryDirectory("serve-presets")
        let host = try PluginSandbox.host(loading: ["libPNGCoder.so", "libJPEGCoder.so"])
        coders = host.coders
        var pixels: [UInt8] = []
        for y in 0..<120 { for x in 0..<200 { pixels += [UInt8(x), UInt8(y * 2), 90, 255] } }
        try TestFiles.write(try coders.encode(try Image(width: 200, height: 120, bytes: pixels), format: "png"), to: root + "/a.png")
    }

    private let source = "plain/local%3A%2F%2F%2Fa.png"

    @Test("pr:NAME expands in place after 'default'; the result equals the same options written out; chains and unknown names")
    func presetsExpand() throws {
        let file = root + "/presets.conf"
        try TestFiles.write(Array("# the card sizes\n\ncard=rs:fill:64:48/f:png\n  wide=w:150  \n".utf8), to: file)
        let serve = try ServeProcess(["--root", root, "--preset", "default=q:70", "--preset", "gray=gray", "--presets", file])
        let viaPreset = try serve.get(serve.signed("/pr:card/" + source))
        #expect(viaPreset.status == 200, "\(String(decoding: viaPreset.body, as: UTF8.self))")
        let image = try coders.decode(data: viaPreset.body)
        #expect(image.width == 64 && image.height == 48)
        let written = try serve.get(serve.signed("/q:70/rs:fill:64:48/f:png/" + source))
        #expect(written.body == viaPreset.body)
        // Two names after one pr:, and a later option overriding the preset's.
        let chained = try serve.get(serve.signed("/pr:card:gray/" + source))
        let grey = try coders.decode(data: chained.body)
        let p = grey.pixel(x: 40, y: 20)
        #expect(chained.status == 200 && p.r == p.g && p.g == p.b, "\(p)")
        let overridden = try coders.decode(data: try serve.get(serve.signed("/pr:card/rs:fill:32:32/" + source)).body)
        #expect(overridden.width == 32 && overridden.height == 32)
        #expect(try coders.decode(data: try serve.get(serve.signed("/pr:wide/f:png/" + source)).body).width == 150)
        let unknown = try serve.get(serve.signed("/pr:nope/" + source))
        #expect(unknown.status == 400 && String(decoding: unknown.body, as: UTF8.self).contains("unknown preset 'nope'"))
        #expect(serve.terminate() == 0)
    }

    @Test("--only-presets: preset names only (bare or pr:), any other option is 400")
    func onlyPresets() throws {
        let serve = try ServeProcess(["--root", root, "--preset", "card=rs:fill:64:48/f:png", "--only-presets"])
        #expect(try serve.get(serve.signed("/card/" + source)).status == 200)
        #expect(try serve.get(serve.signed("/pr:card/" + source)).status == 200)
        let other = try serve.get(serve.signed("/pr:card/rs:fit:500:500/" + source))
        #expect(other.status == 400 && String(decoding: other.body, as: UTF8.self).contains("only presets"))
        #expect(try serve.get(serve.signed("/" + source)).status == 200, "no option at all is the source as presets allow")
        #expect(serve.terminate() == 0)
    }

    @Test("a bad preset stops the service at start with one line naming it")
    func badPresetsStopAtStart() throws {
        for (arguments, words) in [
            (["--preset", "card=zz:1"], "preset 'card'"),
            (["--preset", "card"], "NAME=OPTIONS"),
            (["--preset", "a b=w:10"], "preset names"),
            (["--preset", "card=pr:other"], "cannot chain"),
            (["--only-presets"], "needs presets"),
        ] {
            let result = try CommandLine.run(TestPaths.imagepipeBinary, ["serve", "--allow-unsigned", "--root", root, "--listen", "127.0.0.1:0"] + arguments)
            #expect(result.status == 2 && result.stderr.contains(words), "\(arguments): \(result.status) \(result.stderr)")
        }
    }

    @Test("quality: q: wins over fq: for the output format, which wins over --format-quality; dpr:N scales the size")
    func formatQualityAndDPR() throws {
        let serve = try ServeProcess(["--root", root, "--format-quality", "jpeg=20,webp=90"])
        let low = try serve.get(serve.signed("/s:150:90/f:jpg/" + source))
        let high = try serve.get(serve.signed("/s:150:90/q:95/f:jpg/" + source))
        let viaFQ = try serve.get(serve.signed("/s:150:90/fq:jpeg:95:webp:10/f:jpg/" + source))
        let qOverFQ = try serve.get(serve.signed("/s:150:90/fq:jpg:20/q:95/f:jpg/" + source))
        #expect(low.status == 200 && high.status == 200 && viaFQ.status == 200)
        #expect(low.body.count < high.body.count, "--format-quality jpeg=20 gave \(low.body.count) B, q:95 \(high.body.count) B")
        #expect(viaFQ.body == high.body && qOverFQ.body == high.body)
        #expect(try serve.get(serve.signed("/fq:jpg/" + source)).status == 400)
        let doubled = try coders.decode(data: try serve.get(serve.signed("/s:50:30/dpr:2/f:png/" + source)).body)
        #expect(doubled.width == 100 && doubled.height == 60)
        #expect(try serve.get(serve.signed("/dpr:9/" + source)).status == 400)
        #expect(serve.terminate() == 0)
        let bad = try CommandLine.run(TestPaths.imagepipeBinary, ["serve", "--allow-unsigned", "--root", root, "--format-quality", "avif"])
        #expect(bad.status == 2 && bad.stderr.contains("--format-quality"), "\(bad.stderr)")
    }
}
