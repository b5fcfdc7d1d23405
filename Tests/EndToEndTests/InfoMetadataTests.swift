import Foundation
import PipelineHost
import Testing
import TestSupport

/// `info` and `/info` report a file's Exif summary, XMP and gain-map presence, from JPEG (APP1) and PNG (eXIf,
/// iTXt) alike; GPS coordinates only when asked (never from the service); libvips reads the same camera.
@Suite(.serialized) struct InfoMetadataTests {
    let root: String
    let coders: CodersManager

    init() throws {
        root = try TestPaths.temporaryDirectory("info-metadata")
        coders = try PluginSandbox.host(loading: ["libPNGCoder.so", "libJPEGCoder.so"]).coders
        var exif = ExifBlockBuilder()
        exif.make = "Imagepipe Optics"
        exif.model = "Test Camera 2"
        exif.captureDate = "2024:05:17 14:03:22"
        exif.copyright = "(c) the imagepipe authors"
        exif.gps = ((48, 51, 29.5), "N", (2, 17, 40.25), "W")
        let image = try Image(width: 64, height: 48, alphaMode: .none, bytes: [UInt8](repeating: 120, count: 64 * 48 * 4))
        let xmp = "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF/></x:xmpmeta>"
        try TestFiles.write(ExifBlockBuilder.jpeg(try coders.encode(image, format: "jpg"), exif: exif.block(), xmp: xmp), to: root + "/camera.jpg")
        try TestFiles.write(ExifBlockBuilder.png(try coders.encode(image, format: "png"), exif: exif.block(), xmp: xmp), to: root + "/camera.png")
        try TestFiles.write(try coders.encode(image, format: "png"), to: root + "/plain.png")
        // WebP through libwebp's own muxer (webpmux -set exif/xmp), when bootstrap installed it.
        if let webpmux = ReferenceTool.path("webpmux"), let cwebp = ReferenceTool.path("cwebp") {
            try TestFiles.write(exif.block(), to: root + "/block.exif")
            try TestFiles.write(Array(xmp.utf8), to: root + "/packet.xmp")
            _ = try CommandLine.run(cwebp, ["-quiet", root + "/plain.png", "-o", root + "/plain.webp"])
            _ = try CommandLine.run(webpmux, ["-set", "exif", root + "/block.exif", root + "/plain.webp", "-o", root + "/exif.webp"])
            _ = try CommandLine.run(webpmux, ["-set", "xmp", root + "/packet.xmp", root + "/exif.webp", "-o", root + "/camera.webp"])
        }
    }

    private func info(_ file: String, _ extra: [String] = []) throws -> [String: Any] {
        let run = try CommandLine.run(TestPaths.imagepipeBinary, ["info", root + "/" + file, "--json", "--plugin-dir", TestPaths.pluginsDirectory] + extra)
        try #require(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    }

    @Test("info --json: camera, capture date, copyright, GPS present (coordinates with --gps), Exif and XMP sizes", arguments: ["camera.jpg", "camera.png"])
    func infoReportsMetadata(file: String) throws {
        let metadata = try #require(try info(file)["metadata"] as? [String: Any], "\(file)")
        let exif = try #require(metadata["exif"] as? [String: Any])
        #expect(exif["make"] as? String == "Imagepipe Optics" && exif["model"] as? String == "Test Camera 2")
        #expect(exif["captureDate"] as? String == "2024:05:17 14:03:22" && exif["copyright"] as? String == "(c) the imagepipe authors")
        #expect(exif["hasGPS"] as? Bool == true && exif["latitude"] == nil, "coordinates only when asked")
        #expect((metadata["exifBytes"] as? Int ?? 0) > 100 && (metadata["xmpBytes"] as? Int ?? 0) > 20)
        let located = try #require(try info(file, ["--gps"])["metadata"] as? [String: Any])
        let latitude = try #require((located["exif"] as? [String: Any])?["latitude"] as? Double)
        #expect(abs(latitude - 48.858194) < 1e-4)
        #expect(try info("plain.png")["metadata"] == nil, "a file without metadata has no metadata key")
        let text = try CommandLine.run(TestPaths.imagepipeBinary, ["info", root + "/" + file, "--plugin-dir", TestPaths.pluginsDirectory])
        #expect(text.stdout.contains("Imagepipe Optics Test Camera 2") && text.stdout.contains("gps:") && !text.stdout.contains("48.85"))
    }

    @Test("WebP: the EXIF and XMP chunks webpmux wrote are read as JPEG's and PNG's are")
    func webpChunks() throws {
        for tool in ["webpmux", "cwebp"] { _ = try Skip.unlessTool(tool) }
        let metadata = try #require(try info("camera.webp")["metadata"] as? [String: Any])
        let exif = try #require(metadata["exif"] as? [String: Any])
        #expect(exif["model"] as? String == "Test Camera 2" && exif["hasGPS"] as? Bool == true)
        #expect((metadata["xmpBytes"] as? Int ?? 0) > 20)
    }

    @Test("libvips reads the same camera and date from the JPEG")
    func vipsAgrees() throws {
        let header = try Skip.unlessTool("vipsheader")
        for (field, value) in [("exif-ifd0-Make", "Imagepipe Optics"), ("exif-ifd0-Model", "Test Camera 2"), ("exif-ifd2-DateTimeOriginal", "2024:05:17 14:03:22")] {
            let run = try CommandLine.run(header, ["-f", field, root + "/camera.jpg"])
            #expect(run.status == 0 && run.stdout.contains(value), "\(field): \(run.stdout) \(run.stderr)")
        }
    }

    @Test("/info carries the summary and never the coordinates")
    func serviceInfo() throws {
        let serve = try ServeProcess(["--root", root])
        let response = try serve.get("/info" + serve.signed("/plain/local%3A%2F%2F%2Fcamera.jpg"))
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let exif = try #require((json["metadata"] as? [String: Any])?["exif"] as? [String: Any])
        #expect(exif["model"] as? String == "Test Camera 2" && exif["hasGPS"] as? Bool == true && exif["latitude"] == nil && exif["longitude"] == nil)
        #expect(serve.terminate() == 0)
    }
}
