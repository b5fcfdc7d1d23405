import Foundation
import PipelineHost
import Testing
import TestSupport

/// Placeholders as users get them: `info --placeholders`, `thumbnail --json --placeholders` and the service's
/// `/info`, on a generated PNG, compared with the library's own computation on the same decode.
@Suite(.serialized) struct PlaceholderCLITests {
    let folder: String
    let png: String
    let host: PluginHost

    init() throws {
        folder = try TestPaths.temporaryDirectory("placeholders-cli")
        host = try PluginSandbox.host(loading: ["libPNGCoder.so", "libFileLoader.so"])
        // 320x200: an orange left half and a teal right half, with a gradient so the hashes have detail.
        var pixels: [UInt8] = []
        for y in 0..<200 {
            for x in 0..<320 {
                pixels += x < 160 ? [240, UInt8(100 + y / 4), 20, 255] : [10, UInt8(150 + y / 4), 160, 255]
            }
        }
        try FileManager.default.createDirectory(atPath: folder + "/root", withIntermediateDirectories: true)
        png = folder + "/root/two.png"
        try TestFiles.write(try host.coders.encode(try Image(width: 320, height: 200, bytes: pixels), format: "png"), to: png)
    }

    /// What the library computes from the same ≤ 100 px decode.
    private func expected() async throws -> Placeholders {
        try await ImageManager(host: host).placeholders(for: png)
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    @Test("info --json --placeholders adds one placeholders object, equal to the library's; the text form lists them")
    func infoPlaceholders() async throws {
        let result = try CommandLine.run(TestPaths.imagepipeBinary, ["info", png, "--json", "--placeholders", "--dominant-colors", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try json(result.stdout)
        #expect(object["width"] as? Int == 320 && object["format"] as? String == "png")
        let placeholders = try #require(object["placeholders"] as? [String: Any])
        let want = try await expected()
        #expect(placeholders["blurHash"] as? String == want.blurHash)
        #expect(placeholders["thumbHash"] as? String == want.thumbHash)
        #expect(placeholders["dHash"] as? String == want.dHash)
        #expect(placeholders["averageColor"] as? String == want.averageColor)
        #expect(placeholders["sampleWidth"] as? Int == 100 && placeholders["sampleHeight"] as? Int == want.sampleHeight)
        let dominant = try #require(placeholders["dominantColors"] as? [[String: Any]])
        // Two colours asked: the two halves, half each.
        let top = dominant.compactMap { $0["color"] as? String }.compactMap { RGBAColor(parsing: $0) }
        #expect(top.count == 2 && Set(top.map { $0.red > 128 }) == [true, false], "\(dominant)")
        #expect(dominant.allSatisfy { abs(($0["share"] as? Double ?? 0) - 0.5) < 0.02 }, "\(dominant)")
        // Without the flag, the JSON is as it was: no placeholders key, no decode.
        let plain = try json(try CommandLine.run(TestPaths.imagepipeBinary, ["info", png, "--json"]).stdout)
        #expect(plain["placeholders"] == nil)
        let text = try CommandLine.run(TestPaths.imagepipeBinary, ["info", png, "--placeholders", "--blurhash", "3x2"])
        #expect(text.status == 0 && text.stdout.contains("blurhash:") && text.stdout.contains("thumbhash:"), "\(text.stdout)")
        let blurLine = try #require(text.stdout.split(separator: "\n").first { $0.hasPrefix("blurhash:") })
        #expect(blurLine.split(separator: " ").last?.count == 4 + 2 * 6)
        let bad = try CommandLine.run(TestPaths.imagepipeBinary, ["info", png, "--placeholders", "--blurhash", "10x3"])
        #expect(bad.status == 2 && bad.stderr.contains("--blurhash"), "\(bad.stderr)")
    }

    @Test("thumbnail --json --placeholders puts each written output's placeholders in its line")
    func thumbnailPlaceholders() throws {
        let out = folder + "/thumbs"
        let result = try CommandLine.run(TestPaths.imagepipeBinary, ["thumbnail", png, "--size", "64,160", "-o", out + "/%s-%z.png",
                                                                     "--json", "--placeholders", "--no-progress"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try result.stdout.split(separator: "\n").map { try json(String($0)) }.filter { $0["type"] as? String == "output" }
        #expect(lines.count == 2)
        for line in lines {
            let placeholders = try #require(line["placeholders"] as? [String: Any], "\(line)")
            let width = try #require(line["width"] as? Int)
            #expect(placeholders["sampleWidth"] as? Int == min(width, 100))
            let thumb = try #require(placeholders["thumbHash"] as? String)
            let bytes = try #require(Data(base64Encoded: thumb))
            let ratio = try #require(ThumbHash.approximateAspectRatio(of: [UInt8](bytes)))
            #expect(abs(ratio - 1.6) < 0.3, "aspect \(ratio)")
        }
        let refused = try CommandLine.run(TestPaths.imagepipeBinary, ["thumbnail", png, "-o", out + "/x-%z.png", "--placeholders"])
        #expect(refused.status == 2 && refused.stderr.contains("--json"), "\(refused.stderr)")
    }

    @Test("serve /info: signed JSON facts, placeholders on request, cached with an ETag; bad signature 403, bad option 400")
    func serveInfo() async throws {
        let serve = try ServeProcess(["--root", folder + "/root"])
        let facts = try serve.get("/info" + serve.signed("/plain/local%3A%2F%2F%2Ftwo.png"))
        #expect(facts.status == 200, "\(String(decoding: facts.body, as: UTF8.self)) \(serve.standardError)")
        #expect(facts.headers["content-type"] == "application/json")
        let object = try json(String(decoding: facts.body, as: UTF8.self))
        #expect(object["width"] as? Int == 320 && object["height"] as? Int == 200 && object["placeholders"] == nil)
        #expect(object["coderID"] == nil, "which plugin read it is not the client's business")
        // The signature covers the path after /info, as imgproxy signs info URLs.
        let withHashes = serve.signed("/bh:3:3/dc:1/plain/local%3A%2F%2F%2Ftwo.png")
        let reply = try serve.get("/info" + withHashes)
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        let placeholders = try #require(try json(String(decoding: reply.body, as: UTF8.self))["placeholders"] as? [String: Any])
        var settings = Placeholders.Settings()
        settings.blurHashComponentsX = 3
        settings.blurHashComponentsY = 3
        let want = try await ImageManager(host: host).placeholders(for: png, settings: settings)
        #expect(placeholders["blurHash"] as? String == want.blurHash)
        #expect(placeholders["thumbHash"] as? String == want.thumbHash)
        let etag = try #require(reply.headers["etag"])
        #expect(try serve.get("/info" + withHashes, headers: ["If-None-Match": etag]).status == 304)
        #expect(try serve.get("/info" + withHashes).body == reply.body)
        #expect(try serve.get("/info" + serve.signed("/bh:3:3/plain/local%3A%2F%2F%2Ftwo.png").replacing("bh:3:3", with: "bh:4:4")).status == 403)
        #expect(try serve.get("/info/unsigned/plain/local%3A%2F%2F%2Ftwo.png").status == 403)
        #expect(try serve.get("/info" + serve.signed("/bh:0:3/plain/local%3A%2F%2F%2Ftwo.png")).status == 400)
        #expect(try serve.get("/info" + serve.signed("/zz:1/plain/local%3A%2F%2F%2Ftwo.png")).status == 400)
        #expect(try serve.get("/info" + serve.signed("/plain/local%3A%2F%2F%2Fmissing.png")).status == 404)
        #expect(try serve.get("/info" + serve.signed("/plain/local%3A%2F%2F%2F..%2Foutside.png")).status == 403)
        #expect(serve.terminate() == 0)
    }
}
