import Foundation
import PipelineHost
import Testing
import TestSupport

/// `mb:BYTES` in serve URLs (imgproxy's `max_bytes`) and `--max-bytes` in the CLI: the answer fits the budget.
@Suite(.serialized) struct ByteBudgetServeTests {
    @Test("mb: answers within the budget at a lower quality, cached apart from the unbudgeted answer; render --max-bytes too")
    func outputsFitTheBudget() throws {
        let root = try TestPaths.temporaryDirectory("serve-byte-budget")
        let coders = try PluginSandbox.host(loading: ["libPNGCoder.so", "libJPEGCoder.so"]).coders
        var pixels: [UInt8] = []
        var random = SplitMix64(seed: 3)
        for y in 0..<300 { for x in 0..<400 { pixels += [UInt8(x & 0xff) &+ UInt8(random.next() % 40), UInt8(y & 0xff), UInt8((x * y) & 0xff), 255] } }
        try TestFiles.write(try coders.encode(try Image(width: 400, height: 300, alphaMode: .none, bytes: pixels), format: "png"), to: root + "/p.png")
        let serve = try ServeProcess(["--root", root])
        let source = "/f:jpg/plain/local%3A%2F%2F%2Fp.png"
        let plain = try serve.get(serve.signed("/q:90" + source))
        #expect(plain.status == 200)
        let budget = plain.body.count / 3
        let budgeted = try serve.get(serve.signed("/q:90/mb:\(budget)" + source))
        #expect(budgeted.status == 200 && budgeted.body.count <= budget, "\(budgeted.body.count) > \(budget)")
        #expect(budgeted.headers["etag"] != plain.headers["etag"])
        let decoded = try coders.decode(data: budgeted.body)
        #expect(decoded.width == 400 && decoded.height == 300)
        #expect(try serve.get(serve.signed("/mb:-5" + source)).status == 400)
        #expect(serve.terminate() == 0)

        let out = root + "/out.jpg"
        let run = try CommandLine.run(TestPaths.imagepipeBinary, ["render", root + "/p.png", "-o", out, "--quality", "90", "--max-bytes", String(budget),
                                                                  "--plugin-dir", TestPaths.pluginsDirectory])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try TestFiles.read(out) == budgeted.body, "the CLI and the service search the same way")
        let bad = try CommandLine.run(TestPaths.imagepipeBinary, ["render", root + "/p.png", "-o", out, "--max-bytes", "lots", "--plugin-dir", TestPaths.pluginsDirectory])
        #expect(bad.status == 2 && bad.stderr.contains("--max-bytes"))
    }
}
