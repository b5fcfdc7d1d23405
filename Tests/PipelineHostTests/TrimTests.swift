import Foundation
import PipelineHost
import Testing
import TestSupport

/// Trimming a uniform border: the content box `TrimOptions` finds, against the one `vips find_trim` finds on the
/// same files (the operation imgproxy's `trim` runs), and what a trimmed decode then fills.
@Suite struct TrimTests {
    /// Generated scenes: content (plasma) on a border, some with noise in the border, one as JPEG, one transparent.
    private static let scenes: [(name: String, args: [String], file: String)] = [
        ("white", ["-size", "300x200", "xc:white", "(", "-seed", "5", "-size", "120x80", "plasma:fractal", ")", "-geometry", "+50+40", "-composite"], "png"),
        ("noisy", ["-size", "320x240", "xc:#f4f4f4", "(", "-seed", "7", "-size", "100x150", "plasma:fractal", ")", "-geometry", "+190+20", "-composite",
                   "-seed", "3", "-attenuate", "0.15", "+noise", "Gaussian"], "png"),
        ("jpeg", ["-size", "280x280", "xc:#3050a0", "(", "-seed", "11", "-size", "90x60", "plasma:fractal", ")", "-geometry", "+20+180", "-composite",
                  "-quality", "80"], "jpg"),
        ("speck", ["-size", "200x200", "xc:white", "-fill", "black", "-draw", "point 5,5", "-draw", "rectangle 60,70 140,120"], "png"),
        ("transparent", ["-size", "240x160", "xc:none", "-fill", "#c02020", "-draw", "circle 120,80 150,100"], "png"),
    ]

    private static func scene(_ index: Int, in folder: String) throws -> String {
        let convert = try #require(ReferenceTool.path("convert"))
        let s = scenes[index]
        let path = folder + "/\(s.name).\(s.file)"
        let made = try CommandLine.run(convert, s.args + (s.file == "png" ? ["-depth", "8", (s.name == "transparent" ? "PNG32:" : "PNG24:") + path] : [path]))
        try #require(made.status == 0, "convert: \(made.stderr)")
        return path
    }

    /// vips' box: `vips find_trim` prints left, top, width and height, one per line.
    private static func vipsBox(_ path: String, threshold: Double, background: [Int]?) throws -> [Int] {
        let vips = try #require(ReferenceTool.path("vips"))
        let run = try CommandLine.run(vips, ["find_trim", path, "--threshold", String(threshold)]
                                      + (background.map { ["--background", $0.map(String.init).joined(separator: " ")] } ?? []))
        try #require(run.status == 0, "vips find_trim: \(run.stderr)")
        return run.stdout.split(whereSeparator: \.isNewline).compactMap { Int($0) }
    }

    @Test("the content box equals vips find_trim's on generated scenes (noise, JPEG, a lone speck, transparency)", arguments: 0..<5)
    func boxMatchesVips(index: Int) throws {
        for tool in ["vips", "convert"] { _ = try Skip.unlessTool(tool) }
        let folder = try TestPaths.temporaryDirectory("trim")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let coders = try PluginSandbox.host(loading: ["libPNGCoder.so", "libJPEGCoder.so"]).coders
        let path = try Self.scene(index, in: folder)
        let image = try coders.decode(data: try TestFiles.read(path))
        // The border colour given (vips' default is white; a transparent border flattens onto it), and the corner's.
        let corner = image.pixel(x: 0, y: 0)
        let cornerColour = image.hasAlpha && corner.a < 255 ? [255, 255, 255] : [Int(corner.r), Int(corner.g), Int(corner.b)]
        for threshold in [10.0, 30.0] {
            let ours = try #require(TrimOptions(threshold: threshold).contentBox(of: image))
            let theirs = try Self.vipsBox(path, threshold: threshold, background: cornerColour)
            #expect([ours.x, ours.y, ours.width, ours.height] == theirs, "\(Self.scenes[index].name) at \(threshold)")
        }
    }

    @Test("equal sides keep the content where it was centred; an image of one colour is left whole; the trim is in the key")
    func equalSidesAndUniformImages() throws {
        var pixels: [UInt8] = []
        for y in 0..<100 { for x in 0..<100 { pixels += x >= 10 && x < 70 && y >= 30 && y < 90 ? [0, 0, 0, 255] : [255, 255, 255, 255] } }
        let image = try Image(width: 100, height: 100, bytes: pixels)
        let plain = try #require(TrimOptions().contentBox(of: image))
        #expect(plain.x == 10 && plain.y == 30 && plain.width == 60 && plain.height == 60)
        let equal = try #require(TrimOptions(equalHorizontal: true, equalVertical: true).contentBox(of: image))
        #expect(equal.x == 10 && equal.width == 80 && equal.y == 10 && equal.height == 80)
        let white = try Image(width: 50, height: 40, bytes: [UInt8](repeating: 255, count: 50 * 40 * 4))
        #expect(TrimOptions().contentBox(of: white) == nil)
        #expect(try ImageTransformers.Trim().transform(white).width == 50)
        let keys = Set([DecodeOptions(), DecodeOptions(trim: TrimOptions()), DecodeOptions(trim: TrimOptions(threshold: 20)),
                        DecodeOptions(trim: TrimOptions(background: RGBAColor(red: 1, green: 2, blue: 3))),
                        DecodeOptions(trim: TrimOptions(equalHorizontal: true))].map { ImageCacheKey(ImageRequest(url: "file:///a.png", options: $0)).imageKey })
        #expect(keys.count == 5)
    }

    @Test("a trimmed decode fills the box with the content, from a shrink-on-load coder (JPEG) and a vector (SVG) alike")
    func trimmedDecodeFillsTheBox() throws {
        let coders = try PluginSandbox.host(loading: ["libPNGCoder.so", "libJPEGCoder.so", "libSVGCoder.so"]).coders
        var pixels: [UInt8] = []
        for y in 0..<400 { for x in 0..<600 { pixels += x >= 100 && x < 300 && y >= 50 && y < 350 ? [UInt8(x & 0xff), 40, 200, 255] : [255, 255, 255, 255] } }
        let source = try Image(width: 600, height: 400, bytes: pixels)
        for format in ["png", "jpg"] {
            let data = try coders.encode(source, format: format)
            let fitted = try coders.decode(data: data, options: DecodeOptions(thumbnailSize: PixelSize(width: 100, height: 100), trim: TrimOptions()))
            #expect(abs(fitted.width - 67) <= 1 && fitted.height == 100, "\(format): the 200x300 content fits at 67x100, got \(fitted.width)x\(fitted.height)")
            let whole = try coders.decode(data: data, options: DecodeOptions(thumbnailSize: PixelSize(width: 100, height: 100)))
            #expect(whole.width == 100 && whole.height == 67)
        }
        let svg = Array("""
            <svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"><rect x="60" y="10" width="20" height="20" fill="#000"/></svg>
            """.utf8)
        let icon = try coders.decode(data: svg, options: DecodeOptions(thumbnailSize: PixelSize(width: 64, height: 64), trim: TrimOptions(background: RGBAColor(red: 255, green: 255, blue: 255))))
        #expect(icon.width == 64 && icon.height == 64, "the 20x20 square fills the box: \(icon.width)x\(icon.height)")
    }
}
