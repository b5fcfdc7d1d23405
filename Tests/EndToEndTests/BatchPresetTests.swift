import Foundation
import PipelineHost
import Testing
import TestSupport

/// `thumbnail --presets FILE --preset NAME`: a batch writes what `serve --presets FILE` answers for `pr:NAME`.
@Suite(.serialized) struct BatchPresetTests {
    @Test("thumbnail --preset renders as serve's pr:NAME from the same file (size, gravity, trim, watermark, format); conflicts are usage errors")
    func batchEqualsService() throws {
        let root = try TestPaths.temporaryDirectory("batch-preset")
        let coders = try PluginSandbox.host(loading: ["libPNGCoder.so", "libJPEGCoder.so", "libWebPCoder.so"]).coders
        var pixels: [UInt8] = []
        for y in 0..<240 { for x in 0..<360 { pixels += x > 300 || y > 200 ? [255, 255, 255, 255] : [UInt8(x * 255 / 300), UInt8(y), 60, 255] } }
        try TestFiles.write(try coders.encode(try Image(width: 360, height: 240, alphaMode: .none, bytes: pixels), format: "png"), to: root + "/src.png")
        try TestFiles.write(try coders.encode(try Image(width: 20, height: 10, bytes: [UInt8](repeating: 200, count: 20 * 10 * 4)), format: "png"), to: root + "/mark.png")
        let file = root + "/presets.conf"
        try Data("""
            # the service's presets
            default=q:70
            square=rs:fill:64:64/g:sm/t:10/f:png
            marked=rs:fit:100:100/wm:0.8:soea:2:2/f:webp
            """.utf8).write(to: URL(fileURLWithPath: file))
        let serve = try ServeProcess(["--root", root, "--presets", file, "--watermark", root + "/mark.png"])
        for (name, format) in [("square", "png"), ("marked", "webp")] {
            let answer = try serve.get(serve.signed("/pr:\(name)/plain/local%3A%2F%2F%2Fsrc.png"))
            #expect(answer.status == 200)
            let out = root + "/out-\(name)"
            let run = try CommandLine.run(TestPaths.imagepipeBinary, ["thumbnail", root + "/src.png", "--presets", file, "--preset", name,
                                                                      "--watermark", root + "/mark.png", "-o", out + "/%s.\(format)",
                                                                      "--plugin-dir", TestPaths.pluginsDirectory])
            #expect(run.status == 0, "\(name): \(run.stderr)")
            let written = try TestFiles.read(out + "/src.\(format)")
            let (ours, theirs) = (try coders.decode(data: written), try coders.decode(data: answer.body))
            #expect(ours.width == theirs.width && ours.height == theirs.height, "\(name): \(ours.width)x\(ours.height) vs \(theirs.width)x\(theirs.height)")
            #expect(written == answer.body, "\(name): the batch wrote the service's bytes")
        }
        #expect(serve.terminate() == 0)
        for (extra, expected) in [(["--presets", file, "--preset", "square", "--size", "32"], "--size"), (["--preset", "square"], "--presets"),
                                  (["--presets", file], "--preset"), (["--presets", file, "--preset", "nosuch"], "nosuch"),
                                  (["--presets", file, "--preset", "square", "--format", "jpg"], "disagree")] {
            let run = try CommandLine.run(TestPaths.imagepipeBinary, ["thumbnail", root + "/src.png", "-o", root + "/x/%s.png", "--watermark",
                                                                      root + "/mark.png", "--plugin-dir", TestPaths.pluginsDirectory] + extra)
            #expect(run.status == 2 && run.stderr.contains(expected), "\(extra): \(run.stderr)")
        }
    }
}
