import Foundation
import PipelineHost
import Testing
import TestSupport

/// `render --lossless-jpeg` and its way back, as a user runs them: the JPEG's own data into JPEG XL, and the original
/// file out again when nothing asks for other pixels; everything else takes the pixel path.
@Suite("render --lossless-jpeg")
struct LosslessJPEGCLITests {
    static func render(_ arguments: [String]) throws -> ProcessResult {
        try CommandLine.run(TestPaths.imagepipeBinary, ["render"] + arguments + ["--plugin-dir", TestPaths.pluginsDirectory])
    }

    @Test("photo.jpg → photo.jxl → photo.jpg is the original file; a resize or --quality re-encodes")
    func roundTripAndPixelPaths() throws {
        let folder = try TestPaths.temporaryDirectory("lossless-jpeg-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let host = try PluginSandbox.host(loading: ["libJPEGCoder.so", "libJXLCoder.so"])
        let picture = try Image(width: 300, height: 200, pixelFormat: .rgba8, alphaMode: .none,
                                bytes: (0..<(300 * 200)).flatMap { i -> [UInt8] in
                                    let x = i % 300, y = i / 300
                                    return [UInt8(x * 255 / 299), UInt8(y * 255 / 199), UInt8((x ^ y) & 0xFF), 255]
                                })
        let jpeg = try host.coders.encode(picture, format: "jpeg", options: EncodeOptions(quality: 85))
        let original = try TestFiles.write(jpeg, to: folder + "/photo.jpg")

        let stored = try Self.render([original, "-o", folder + "/photo.jxl", "--lossless-jpeg"])
        try #require(stored.status == 0, "\(stored.stderr)")
        let jxl = try TestFiles.read(folder + "/photo.jxl")
        #expect(jxl.count < jpeg.count, "\(jpeg.count) -> \(jxl.count) bytes")
        let back = try Self.render([folder + "/photo.jxl", "-o", folder + "/back.jpg"])
        try #require(back.status == 0, "\(back.stderr)")
        #expect(try TestFiles.read(folder + "/back.jpg") == jpeg, "not the original JPEG")

        // Asking for other pixels or another encoding re-encodes from the decoded image.
        let small = try Self.render([folder + "/photo.jxl", "-o", folder + "/small.jpg", "--size", "60x60"])
        try #require(small.status == 0, "\(small.stderr)")
        let smallImage = try host.coders.decode(data: try TestFiles.read(folder + "/small.jpg"))
        #expect((smallImage.width, smallImage.height) == (60, 40))
        let requality = try Self.render([folder + "/photo.jxl", "-o", folder + "/q.jpg", "--quality", "40"])
        try #require(requality.status == 0, "\(requality.stderr)")
        #expect(try TestFiles.read(folder + "/q.jpg") != jpeg)
    }

    @Test("--lossless-jpeg refuses what it cannot keep, with one line each")
    func refusals() throws {
        let folder = try TestPaths.temporaryDirectory("lossless-jpeg-refusals")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let host = try PluginSandbox.host(loading: ["libJPEGCoder.so", "libPNGCoder.so"])
        let picture = try Image(width: 16, height: 16, pixelFormat: .rgba8, alphaMode: .none, bytes: [UInt8](repeating: 128, count: 16 * 16 * 4))
        let jpeg = try TestFiles.write(try host.coders.encode(picture, format: "jpeg"), to: folder + "/a.jpg")
        let png = try TestFiles.write(try host.coders.encode(picture, format: "png"), to: folder + "/a.png")
        let cases: [([String], Int32, String)] = [
            ([jpeg, "-o", folder + "/x.jxl", "--lossless-jpeg", "--size", "8x8"], 2, "cannot be combined with resizing"),
            ([jpeg, "-o", folder + "/x.jxl", "--lossless-jpeg", "--quality", "50"], 2, "--quality does not apply"),
            ([jpeg, "-o", folder + "/x.png", "--lossless-jpeg"], 1, "no coder converts jpeg to png"),
            ([png, "-o", folder + "/x.jxl", "--lossless-jpeg"], 1, "no coder converts png to jxl"),
        ]
        for (arguments, status, text) in cases {
            let run = try Self.render(arguments)
            #expect(run.status == status, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(text), "\(arguments): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: arguments[2]), "\(arguments[2]) was written")
        }
    }

    @Test("over HTTP: a JPEG XL with reconstruction data gives its JPEG back, and a PNG rendered to JPEG is fetched once")
    func remoteSources() throws {
        let folder = try TestPaths.temporaryDirectory("lossless-jpeg-http")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let host = try PluginSandbox.host(loading: ["libJPEGCoder.so", "libJXLCoder.so", "libPNGCoder.so"])
        var pixels: [UInt8] = []
        for y in 0..<48 { for x in 0..<64 { pixels += [UInt8(x * 4), UInt8(y * 5), 90, 255] } }
        let picture = try Image(width: 64, height: 48, pixelFormat: .rgba8, alphaMode: .none, bytes: pixels)
        let jpeg = try host.coders.encode(picture, format: "jpeg")
        guard case .converted(let jxl) = try host.coders.transcode(data: jpeg, to: "jxl") else {
            Issue.record("the JPEG could not be recompressed"); return
        }
        _ = try TestFiles.write(jxl, to: folder + "/photo.jxl")
        _ = try TestFiles.write(try host.coders.encode(picture, format: "png"), to: folder + "/image.png")
        let server = try TestHTTPServer(root: folder)
        let back = try Self.render([server.url("/photo.jxl"), "-o", folder + "/back.jpg", "--no-cache"])
        try #require(back.status == 0, "\(back.stderr)")
        #expect(try TestFiles.read(folder + "/back.jpg") == jpeg, "not the original JPEG")
        // A source no coder transcodes takes the pixel path from the bytes already fetched: one request, not two.
        let plain = try Self.render([server.url("/image.png"), "-o", folder + "/image.jpg", "--no-cache"])
        try #require(plain.status == 0, "\(plain.stderr)")
        #expect(try server.requestCount("/image.png") == 1)
        #expect((try host.coders.decode(data: try TestFiles.read(folder + "/image.jpg"))).width == 64)
    }
}
