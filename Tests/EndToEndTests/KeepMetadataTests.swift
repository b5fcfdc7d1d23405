import Foundation
import PipelineHost
import Testing
import TestSupport

/// The metadata policy as users see it: outputs carry no Exif or XMP by default; `--keep-metadata copyright|all`
/// (`kmd:`, imgproxy's `sm:0` and `kcr:1` in URLs, `serve --keep-metadata`) keeps what it says in every format
/// whose container has a place for it, with the Orientation reset since the pixels are already turned.
@Suite(.serialized) struct KeepMetadataTests {
    let root: String

    init() throws {
        root = try TestPaths.temporaryDirectory("keep-metadata")
        let coders = try PluginSandbox.host(loading: ["libJPEGCoder.so"]).coders
        // 64×48 as stored, Orientation 6 (turn 90° clockwise): 48×64 as displayed.
        var pixels: [UInt8] = []
        for y in 0..<48 { for x in 0..<64 { pixels += [UInt8(x * 4), UInt8(y * 5), 60, 255] } }
        let image = try Image(width: 64, height: 48, alphaMode: .none, bytes: pixels)
        let xmp = MetadataRoundTrip.xmp.replacingOccurrences(of: "tiff:Orientation=\"1\"", with: "tiff:Orientation=\"6\"")
        try TestFiles.write(ExifBlockBuilder.jpeg(try coders.encode(image, format: "jpg"), exif: MetadataRoundTrip.camera(orientation: 6).block(), xmp: xmp),
                            to: root + "/camera.jpg")
    }

    private func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let run = try CommandLine.run(TestPaths.imagepipeBinary, arguments + ["--plugin-dir", TestPaths.pluginsDirectory])
        return (run.status, run.stdout, run.stderr)
    }

    private func info(_ path: String) throws -> [String: Any] {
        let run = try run(["info", path, "--json"])
        try #require(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    }

    private func metadata(_ path: String) throws -> (exif: [String: Any]?, xmpBytes: Int, size: (Int, Int))? {
        let facts = try info(path)
        let size = (facts["width"] as? Int ?? 0, facts["height"] as? Int ?? 0)
        guard let metadata = facts["metadata"] as? [String: Any] else { return nil }
        return (metadata["exif"] as? [String: Any], metadata["xmpBytes"] as? Int ?? 0, size)
    }

    @Test("render: none by default, copyright keeps Artist and Copyright, all keeps everything upright",
          arguments: ["jpg", "png", "webp", "avif", "heic", "jxl"])
    func render(format: String) throws {
        let out = root + "/out-\(format)"
        for (policy, suffix) in [(nil, "default"), ("copyright", "copyright"), ("all", "all")] {
            let run = try run(["render", root + "/camera.jpg", "-o", "\(out)-\(suffix).\(format)", "--force"]
                              + (policy.map { ["--keep-metadata", $0] } ?? []))
            try #require(run.status == 0, "\(format) \(suffix): \(run.stderr)")
        }
        let plain = try info("\(out)-default.\(format)")
        #expect(plain["metadata"] == nil, "\(format): an output carries no metadata unless asked")
        #expect(plain["width"] as? Int == 48 && plain["height"] as? Int == 64, "the pixels are turned")

        let owned = try #require(try metadata("\(out)-copyright.\(format)"), "\(format): copyright kept nothing")
        let ownedExif = try #require(owned.exif)
        #expect(ownedExif["copyright"] as? String == "(c) the imagepipe authors" && ownedExif["artist"] as? String == "A. Photographer")
        #expect(ownedExif["make"] == nil && ownedExif["captureDate"] == nil && ownedExif["hasGPS"] as? Bool == false && owned.xmpBytes == 0,
                "\(format): copyright keeps nothing else")

        let all = try #require(try metadata("\(out)-all.\(format)"), "\(format): all kept nothing")
        let exif = try #require(all.exif)
        #expect(exif["make"] as? String == "Imagepipe Optics" && exif["model"] as? String == "Test Camera 2" && exif["hasGPS"] as? Bool == true)
        #expect(exif["orientation"] as? Int == 1, "\(format): the pixels are upright, so the Orientation says so")
        #expect(all.xmpBytes > 0 && all.size == (48, 64), "\(format): displayed as the source, not turned twice")
    }

    @Test("--lossless-jpeg keeps the JPEG whole, metadata as stored; without it a JPEG with metadata is re-encoded under the policy")
    func losslessTranscode() throws {
        let whole = try run(["render", root + "/camera.jpg", "-o", root + "/whole.jxl", "--lossless-jpeg", "--force"])
        try #require(whole.status == 0, "\(whole.stderr)")
        let stored = try #require(try metadata(root + "/whole.jxl")?.exif, "libjxl's Brotli Exif box is read")
        #expect(stored["make"] as? String == "Imagepipe Optics" && stored["orientation"] as? Int == 6, "the file as it was")
        let back = try run(["render", root + "/whole.jxl", "-o", root + "/back.jpg", "--force"])
        try #require(back.status == 0, "\(back.stderr)")
        #expect(try TestFiles.read(root + "/back.jpg") == TestFiles.read(root + "/camera.jpg"), "asked for once, the JPEG comes back bit for bit")
        let plain = try run(["render", root + "/camera.jpg", "-o", root + "/plain.jxl", "--force"])
        try #require(plain.status == 0, "\(plain.stderr)")
        #expect(try info(root + "/plain.jxl")["metadata"] == nil && !(try info(root + "/plain.jxl")["details"] as? String ?? "").contains("jbrd"))
    }

    @Test("a bad --keep-metadata is one line; a batch keeps what it is told and stamps it")
    func batchAndUsage() throws {
        let bad = try run(["render", root + "/camera.jpg", "-o", root + "/x.png", "--keep-metadata", "some"])
        #expect(bad.status != 0 && bad.stderr.contains("--keep-metadata takes none, copyright or all"))
        let folder = root + "/batch"
        let batch = try run(["thumbnail", root + "/camera.jpg", "--size", "32x32", "--out-dir", folder, "--keep-metadata", "copyright",
                             "--format", "png"])
        try #require(batch.status == 0, "\(batch.stderr)")
        let written = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasSuffix(".png") })
        let exif = try #require(try metadata(folder + "/" + written)?.exif)
        #expect(exif["copyright"] as? String == "(c) the imagepipe authors" && exif["make"] == nil)
    }

    @Test("serve: kmd:, imgproxy's sm:0 and kcr:1, and --keep-metadata as the default; each a distinct result")
    func service() throws {
        for (arguments, cases) in [([String](), [("", nil), ("kmd:all/", "all"), ("sm:0/", "all"), ("kcr:1/", "copyright"), ("kmd:none/", nil)]),
                                   (["--keep-metadata", "copyright"], [("", "copyright"), ("kmd:none/", nil)])] {
            let serve = try ServeProcess(["--root", root] + arguments)
            for (options, expected) in cases {
                let response = try serve.get(serve.signed("/" + options + "plain/local%3A%2F%2F%2Fcamera.jpg@png"))
                try #require(response.status == 200, "\(options): \(String(decoding: response.body, as: UTF8.self))")
                let file = root + "/served.png"
                try TestFiles.write(response.body, to: file)
                let found = try metadata(file)
                switch expected {
                case nil: #expect(found == nil, "\(arguments) \(options): nothing kept")
                case "copyright": #expect(found?.exif?["copyright"] != nil && found?.exif?["make"] == nil && found?.xmpBytes == 0, "\(arguments) \(options)")
                default: #expect(found?.exif?["make"] as? String == "Imagepipe Optics" && found?.exif?["orientation"] as? Int == 1, "\(arguments) \(options)")
                }
            }
            let bad = try serve.get(serve.signed("/kmd:most/plain/local%3A%2F%2F%2Fcamera.jpg@png"))
            #expect(bad.status == 400)
            #expect(serve.terminate() == 0)
        }
    }
}
