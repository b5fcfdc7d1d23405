import Foundation
import PipelineHost
import Testing
import TestSupport

/// The processing flags of `render` and `thumbnail`: each one reaches the output, the chain's order is fixed, bad
/// values are usage errors, and a batch's stamps change when the flags do.
@Suite("CLI: processing flags")
struct ProcessingCLITests {
    private let plugins = ["--plugin-dir", TestPaths.pluginsDirectory]

    private func render(_ source: String, _ output: String, _ extra: [String]) throws -> ProcessResult {
        try CommandLine.run(TestPaths.imagepipeBinary, ["render", source, "-o", output] + extra + plugins)
    }

    /// A 90x60 PNG: left third red, middle green, right third blue, so crops and gravity are visible by colour.
    private func stripes(in folder: String, host: PluginHost) throws -> String {
        var pixels: [UInt8] = []
        for _ in 0..<60 { for x in 0..<90 { pixels += x < 30 ? [255, 0, 0, 255] : x < 60 ? [0, 255, 0, 255] : [0, 0, 255, 255] } }
        let path = folder + "/stripes.png"
        try Data(try host.coders.encode(try Image(width: 90, height: 60, bytes: pixels), format: "png")).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("each flag reaches the output: crop with gravity, aspect crop, rotate, flip, grayscale, blur, radius, circle, flatten")
    func flagsReachTheOutput() throws {
        let folder = try TestPaths.temporaryDirectory("processing-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let host = try PluginSandbox.host(loading: ["libPNGCoder.so", "libJPEGCoder.so"])
        let source = try stripes(in: folder, host: host)
        func output(_ extra: [String], format: String = "png") throws -> Image {
            let path = folder + "/out." + format
            let run = try render(source, path, extra)
            #expect(run.status == 0, "\(extra): \(run.stderr)")
            return try host.coders.decode(data: try TestFiles.read(path))
        }
        let right = try output(["--crop", "20x20", "--gravity", "east"])
        #expect(right.width == 20 && right.height == 20 && right.pixel(x: 10, y: 10) == RGBA16Pixel(r: 0, g: 0, b: 255, a: 255))
        let square = try output(["--crop", "1:1", "--gravity", "left"])
        #expect(square.width == 60 && square.height == 60 && square.pixel(x: 5, y: 5).r == 255)
        let rectangle = try output(["--crop", "10x10+35+5"])
        #expect(rectangle.width == 10 && rectangle.pixel(x: 5, y: 5).g == 255)
        let turned = try output(["--rotate", "90"])
        #expect(turned.width == 60 && turned.height == 90 && turned.pixel(x: 30, y: 5).r == 255, "red is on top after a quarter turn")
        let flipped = try output(["--flip", "horizontal"])
        #expect(flipped.pixel(x: 5, y: 5).b == 255)
        let gray = try output(["--grayscale"])
        let g = gray.pixel(x: 5, y: 5)
        #expect(g.r == g.g && g.g == g.b && abs(Int(g.r) - 54) <= 1, "Rec. 709 luma of red is 54: \(g)")
        let blurred = try output(["--blur", "3"])
        #expect(blurred.pixel(x: 30, y: 30).r > 40 && blurred.pixel(x: 30, y: 30).g > 40, "the red/green edge is mixed")
        let rounded = try output(["--radius", "15"])
        #expect(rounded.pixel(x: 0, y: 0).a == 0 && rounded.pixel(x: 45, y: 30).a == 255)
        let circle = try output(["--circle", "--size", "40x40"])
        #expect(circle.width == 27 && circle.height == 27 && circle.pixel(x: 0, y: 0).a == 0 && circle.pixel(x: 13, y: 13).a == 255, "\(circle.width)x\(circle.height)")
        let flat = try output(["--circle", "--flatten", "--background", "yellow"])
        #expect(!flat.hasAlpha || flat.pixel(x: 0, y: 0).a == 255)
        #expect(flat.pixel(x: 0, y: 0).r == 255 && flat.pixel(x: 0, y: 0).g == 255 && flat.pixel(x: 0, y: 0).b == 0)
        let fill = try output(["--size", "30x60", "--mode", "aspect-fill", "--gravity", "right"])
        #expect(fill.width == 30 && fill.height == 60 && fill.pixel(x: 15, y: 30).b == 255)
        // The order is fixed whatever the order of the flags: crop first, then rotate.
        let a = try output(["--rotate", "90", "--crop", "30x20+0+0"]), b = try output(["--crop", "30x20+0+0", "--rotate", "90"])
        #expect(a.bytes == b.bytes && a.width == 20 && a.height == 30)
    }

    @Test("bad processing values are usage errors naming the flag")
    func badValuesAreUsageErrors() throws {
        let folder = try TestPaths.temporaryDirectory("processing-cli-bad")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let host = try PluginSandbox.host(loading: ["libPNGCoder.so"])
        let source = try stripes(in: folder, host: host)
        for (flags, name) in [(["--crop", "0x5"], "--crop"), (["--crop", "3:0"], "--crop"), (["--gravity", "up"], "--gravity"),
                              (["--rotate", "45"], "--rotate"), (["--flip", "diagonal"], "--flip"), (["--blur", "-1"], "--blur"),
                              (["--radius", "x"], "--radius"), (["--circle", "--radius", "4"], "--circle"),
                              (["--scale-down-limit", "lots"], "--scale-down-limit")] {
            let run = try render(source, folder + "/x.png", flags)
            #expect(run.status == 2 && run.stderr.contains(name), "\(flags): \(run.status) \(run.stderr)")
        }
        let outside = try render(source, folder + "/x.png", ["--crop", "10x10+200+200"])
        #expect(outside.status == 1 && outside.stderr.contains("outside"), "\(outside.stderr)")
    }

    @Test("thumbnail applies the flags to every output, and a rerun with other flags redoes the outputs")
    func thumbnailStampsFollowTheFlags() throws {
        let folder = try TestPaths.temporaryDirectory("processing-cli-batch")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let host = try PluginSandbox.host(loading: ["libPNGCoder.so"])
        let source = try stripes(in: folder, host: host)
        let arguments = ["thumbnail", source, "--size", "32,64", "-o", folder + "/t_%z.png", "--json", "--circle"] + plugins
        let first = try CommandLine.run(TestPaths.imagepipeBinary, arguments)
        #expect(first.status == 0, "\(first.stderr)")
        for side in [32, 64] {
            let image = try host.coders.decode(data: try TestFiles.read(folder + "/t_\(side)x\(side).png"))
            let expected = Int((Double(side) * 2 / 3).rounded())  // fit 90x60 into the box, then the circle of its height
            #expect(image.width == expected && image.height == expected && image.pixel(x: 0, y: 0).a == 0)
        }
        let again = try CommandLine.run(TestPaths.imagepipeBinary, arguments)
        #expect(again.stdout.components(separatedBy: "\"status\":\"up-to-date\"").count == 3, "\(again.stdout)")
        let other = try CommandLine.run(TestPaths.imagepipeBinary, arguments + ["--grayscale"])
        #expect(other.stdout.components(separatedBy: "\"status\":\"written\"").count == 3, "\(other.stdout)")
    }

    @Test("cache prefetch fills the disk cache: the render that follows makes no request; a bad source is one line and exit 1")
    func cachePrefetchWarmsTheDiskCache() throws {
        let folder = try TestPaths.temporaryDirectory("processing-cli-prefetch")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let host = try PluginSandbox.host(loading: ["libPNGCoder.so"])
        _ = try stripes(in: folder, host: host)
        let server = try TestHTTPServer(root: folder)
        defer { server.stop() }
        let url = server.url("/stripes.png"), cache = ["--cache-dir", folder + "/cache"]
        let prefetch = try CommandLine.run(TestPaths.imagepipeBinary, ["cache", "prefetch", url, "--size", "32,48"] + cache + plugins)
        #expect(prefetch.status == 0 && prefetch.stdout.contains("prefetched 2 of 2"), "\(prefetch.stdout) \(prefetch.stderr)")
        #expect(try server.requestCount("/stripes.png") == 1)
        let render = try CommandLine.run(TestPaths.imagepipeBinary, ["render", url, "--size", "48x48", "-o", folder + "/out.png"] + cache + plugins)
        #expect(render.status == 0, "\(render.stderr)")
        #expect(try server.requestCount("/stripes.png") == 1, "the render was served from what the prefetch stored")
        let bad = try CommandLine.run(TestPaths.imagepipeBinary, ["cache", "prefetch", url, server.url("/missing.png")] + cache + plugins)
        #expect(bad.status == 1 && bad.stdout.contains("prefetched 1 of 2") && bad.stderr.contains("missing.png"), "\(bad.stdout) \(bad.stderr)")
    }
}
