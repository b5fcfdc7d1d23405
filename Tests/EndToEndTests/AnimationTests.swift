import Foundation
import PipelineHost
import Testing
import TestSupport

/// Animations across coders: frame limits, GIF → WebP conversion keeping frames, timing and loop count.
@Suite struct AnimationTests {
    /// A 3-frame 20x20 GIF that plays twice, made with gifsicle from frames ImageMagick draws.
    private func makeGIF(in folder: String) throws -> String? {
        guard CommandLine.hasTool("gifsicle"), CommandLine.hasTool("convert") else { return nil }
        for (index, colour) in ["red", "lime", "blue"].enumerated() {
            try CommandLine.shell("convert -size 20x20 xc:\(colour) \(folder)/f\(index).gif").status == 0 ? () : ()
        }
        let output = folder + "/anim.gif"
        let result = try CommandLine.shell("gifsicle --loopcount=2 --delay=30 \(folder)/f0.gif --delay=40 \(folder)/f1.gif --delay=50 \(folder)/f2.gif > \(output)")
        return result.status == 0 ? output : nil
    }

    @Test func anAnimationOfExactlyMaxFramesEndsNormally() throws {
        let folder = try TestPaths.temporaryDirectory()
        guard let gif = try makeGIF(in: folder) else { try Skip.because("gifsicle or convert missing", bootstrapProvides: true) }
        let host = try PluginSandbox.host(loading: ["libGIFCoder.so"])
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: gif)))
        var limits = DecodeLimits()
        limits.maxFrames = 3
        #expect(try host.coders.frames(data: bytes, options: DecodeOptions(limits: limits)).readAll().count == 3)
        limits.maxFrames = 2
        #expect(throws: PipelineError.self) { _ = try host.coders.frames(data: bytes, options: DecodeOptions(limits: limits)).readAll() }
    }

    @Test func gifToWebPKeepsFramesTimingAndLoopCount() throws {
        let folder = try TestPaths.temporaryDirectory()
        guard let gif = try makeGIF(in: folder) else { try Skip.because("gifsicle or convert missing", bootstrapProvides: true) }
        let output = folder + "/anim.webp"
        let render = try CommandLine.run(TestPaths.imagepipeBinary, ["render", gif, "-o", output])
        #expect(render.status == 0, "\(render.stderr)")
        let info = try CommandLine.run(TestPaths.imagepipeBinary, ["info", output, "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        #expect(json["format"] as? String == "webp")
        #expect(json["frameCount"] as? Int == 3)
        // gifsicle's --loopcount=2 writes NETSCAPE repeat 2: the GIF plays 3 times, and so must the WebP.
        let gifInfo = try CommandLine.run(TestPaths.imagepipeBinary, ["info", gif, "--json"])
        let gifJSON = try #require(try JSONSerialization.jsonObject(with: Data(gifInfo.stdout.utf8)) as? [String: Any])
        #expect(gifJSON["loopCount"] as? Int == 3)
        #expect(json["loopCount"] as? Int == 3)
        let host = try PluginSandbox.host(loading: ["libWebPCoder.so"])
        let frames = try host.coders.frames(data: Array(try Data(contentsOf: URL(fileURLWithPath: output)))).readAll()
        #expect(frames.map(\.durationMilliseconds) == [300, 400, 500])
        #expect(frames.map { $0.pixel(x: 10, y: 10).g > 200 } == [false, true, false])
    }
}
