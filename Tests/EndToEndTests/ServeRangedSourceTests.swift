import Foundation
import PipelineHost
import Testing
import TestSupport

/// serve reads a large source beneath `--root` by ranges, through the descriptor it opened beneath the root: the
/// answer is the one the whole bytes give, the metrics count the ranged read, and the input limit still refuses.
@Suite(.serialized) struct ServeRangedSourceTests {
    @Test("a 20 MB PNG beneath --root: answered from ranged reads with the whole read's pixels; --max-input still refuses it")
    func largeLocalSourceIsReadByRanges() throws {
        let root = try TestPaths.temporaryDirectory("serve-ranged")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let coders = try PluginSandbox.host(loading: ["libPNGCoder.so"]).coders
        // Opaque noise does not compress: 2600x2600 is about 20 MB, over the 16 MiB ranged-read threshold.
        var pixels = SplitMix64.opaqueNoise(width: 2600, height: 2600, seed: 43)
        let png = try coders.encode(try Image(width: 2600, height: 2600, bytes: pixels), format: "png", options: EncodeOptions(speed: 10))
        pixels = []
        #expect(png.count > RangedSource.defaultThreshold)
        _ = try TestFiles.write(png, to: root + "/big.png")

        let serve = try ServeProcess(["--root", root])
        let path = serve.signed("/rs:fit:200:200/" + ServeProcess.plain("local:///big.png") + "@png")
        let reply = try serve.get(path)
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        let metrics = String(decoding: try serve.get("/metrics").body, as: UTF8.self)
        #expect(metrics.contains("imagepipe_pipeline_ranged_reads_total 1\n"), "\(metrics)")
        #expect(serve.terminate() == 0)

        // The same thumbnail from the whole bytes: the CLI reading standard input never reads by ranges.
        let whole = root + "/whole.png"
        let run = try CommandLine.shell("'\(TestPaths.imagepipeBinary)' render - --size 200x200 -o '\(whole)' --plugin-dir '\(TestPaths.pluginsDirectory)' < '\(root)/big.png'")
        #expect(run.status == 0, "\(run.stderr)")
        let served = try coders.decode(data: reply.body)
        let expected = try coders.decode(data: try TestFiles.read(whole))
        #expect((served.width, served.height) == (200, 200))
        #expect(served.bytes == expected.bytes)

        let limited = try ServeProcess(["--root", root, "--max-input", "1M"])
        #expect(try limited.get(limited.signed("/rs:fit:200:200/" + ServeProcess.plain("local:///big.png") + "@png")).status == 413)
        #expect(limited.terminate() == 0)
    }
}
