import Foundation
import PipelineHost
import Testing
import TestSupport

/// `t:` in serve URLs (imgproxy's `trim`) and `--trim` in the CLI: the border goes before the size is filled.
@Suite(.serialized) struct TrimServeTests {
    let root: String
    let coders: CodersManager

    /// framed.png: 600x400, a 200x300 dark block at (100, 50) on white; framed.jpg the same as JPEG.
    init() throws {
        root = try TestPaths.temporaryDirectory("serve-trim")
        coders = try PluginSandbox.host(loading: ["libPNGCoder.so", "libJPEGCoder.so"]).coders
        var pixels: [UInt8] = []
        for y in 0..<400 { for x in 0..<600 { pixels += x >= 100 && x < 300 && y >= 50 && y < 350 ? [20, UInt8(y / 2), 90, 255] : [255, 255, 255, 255] } }
        let image = try Image(width: 600, height: 400, alphaMode: .none, bytes: pixels)
        try TestFiles.write(try coders.encode(image, format: "png"), to: root + "/framed.png")
        try TestFiles.write(try coders.encode(image, format: "jpg"), to: root + "/framed.jpg")
    }

    @Test("t:THRESHOLD trims before the fit, with a colour and equal sides; bad arguments are 400; --trim does the same",
          arguments: ["framed.png", "framed.jpg"])
    func trimBeforeTheFit(file: String) throws {
        let serve = try ServeProcess(["--root", root])
        let source = "plain/local%3A%2F%2F%2F" + file
        func get(_ options: String) throws -> (Image, String) { try serve.png(options, of: source, coders: coders) }
        let (whole, wholeTag) = try get("rs:fit:120:120")
        #expect(whole.width == 120 && whole.height == 80)
        let (trimmed, trimmedTag) = try get("rs:fit:120:120/t:10")
        #expect(abs(trimmed.width - 80) <= 1 && trimmed.height == 120, "the 200x300 block fits at 80x120: \(trimmed.width)x\(trimmed.height)")
        #expect(trimmed.pixel(x: 2, y: 2).r < 100, "no white margin is left")
        #expect(trimmedTag != wholeTag)
        let (coloured, _) = try get("rs:fit:120:120/t:10:ffffff")
        #expect(coloured.width == trimmed.width && coloured.height == trimmed.height)
        // Equal sides: left 100 and right 300 keep 100 each (a 400-wide box), top and bottom are 50 already.
        let (equal, _) = try get("rs:fit:120:120/t:10::1:1")
        #expect(equal.width == 120 && abs(equal.height - 90) <= 1, "400x300 fits at 120x90: \(equal.width)x\(equal.height)")
        for bad in ["t:300", "t:10:nocolour", "t:10::2"] {
            #expect(try serve.get(serve.signed("/" + bad + "/" + source)).status == 400, "\(bad)")
        }
        #expect(serve.terminate() == 0)

        let out = root + "/cli.png"
        let run = try CommandLine.run(TestPaths.imagepipeBinary, ["render", root + "/" + file, "-o", out, "--size", "120x120", "--trim", "10",
                                                                  "--plugin-dir", TestPaths.pluginsDirectory])
        #expect(run.status == 0, "\(run.stderr)")
        let cli = try coders.decode(data: try TestFiles.read(out))
        #expect(cli.width == trimmed.width && cli.height == trimmed.height)
        for extra in [["--trim", "x"], ["--trim-color", "white"], ["--trim", "10", "--trim-color", "nope"]] {
            let bad = try CommandLine.run(TestPaths.imagepipeBinary, ["render", root + "/" + file, "-o", out, "--plugin-dir", TestPaths.pluginsDirectory] + extra)
            #expect(bad.status == 2 && bad.stderr.contains("--trim"), "\(extra): \(bad.stderr)")
        }
    }
}
