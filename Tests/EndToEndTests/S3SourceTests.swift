import Foundation
import PipelineHost
import Testing
import TestSupport

/// s3:// sources as users meet them, against a real SeaweedFS: `imagepipe render s3://…` with credentials from the
/// AWS variables, and `serve --allow-source s3://bucket/prefix/` (the prefix holds, changed objects are noticed).
@Suite("s3:// sources in the CLI and the service")
struct S3SourceTests {
    static func png(width: Int, height: Int) throws -> [UInt8] {
        let convert = try Skip.unlessTool("convert")
        let folder = try TestPaths.temporaryDirectory("s3-source-png")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try CommandLine.run(convert, ["-size", "\(width)x\(height)", "gradient:red-blue", folder + "/a.png"])
        guard run.status == 0 else { throw TestSupportError("convert: \(run.stderr)") }
        return try TestFiles.read(folder + "/a.png")
    }

    static func pngSize(_ bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.count > 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return nil }
        let word = { (at: Int) in bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (word(16), word(20))
    }

    @Test("render reads s3:// with the AWS_* variables; a wrong secret fails with one line naming where the keys came from, never the secret")
    func cliRender() throws {
        let store = try SeaweedFS.shared()
        try store.makeBucket("e2e")
        try store.put(try Self.png(width: 80, height: 40), bucket: "e2e", key: "cli/photo one.png")
        let folder = try TestPaths.temporaryDirectory("s3-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("AWS_") }
        environment["HOME"] = folder
        environment["AWS_ACCESS_KEY_ID"] = SeaweedFS.accessKey
        environment["AWS_SECRET_ACCESS_KEY"] = SeaweedFS.secretKey
        environment["AWS_ENDPOINT_URL"] = store.endpoint
        let out = folder + "/out.png"
        let render = try CommandLine.run(TestPaths.imagepipeBinary, ["render", "s3://e2e/cli/photo one.png", "-o", out, "--size", "20x20",
                                                                     "--plugin-dir", TestPaths.pluginsDirectory, "--no-cache"], environment: environment)
        #expect(render.status == 0, "\(render.stderr)")
        #expect(Self.pngSize(try TestFiles.read(out)).map { $0 == (20, 10) } == true)

        environment["AWS_SECRET_ACCESS_KEY"] = "wrong-secret-value-4321"
        let refused = try CommandLine.run(TestPaths.imagepipeBinary, ["info", "s3://e2e/cli/photo one.png", "--plugin-dir", TestPaths.pluginsDirectory,
                                                                      "--no-cache"], environment: environment)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("SignatureDoesNotMatch") && refused.stderr.contains("the environment (AWS_ACCESS_KEY_ID)"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("wrong-secret-value-4321"))
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
    }

    @Test("serve: s3 sources only under --allow-source s3://bucket/prefix/ (segment boundaries, no dot segments); a changed object is rendered anew after --source-ttl")
    func serveSources() throws {
        let store = try SeaweedFS.shared()
        try store.makeBucket("e2e")
        try store.put(try Self.png(width: 60, height: 30), bucket: "e2e", key: "pub/a.png")
        try store.put(try Self.png(width: 60, height: 30), bucket: "e2e", key: "public/a.png")
        try store.put(try Self.png(width: 60, height: 30), bucket: "e2e", key: "private/a.png")
        let options = store.loaderConfiguration.split(separator: "\n").flatMap { ["--loader-option", "s3:" + $0] }
        let serve = try ServeProcess(["--allow-source", "s3://e2e/pub", "--source-ttl", "1"] + options)
        func get(_ source: String) throws -> HTTPReply {
            try serve.get(serve.signed("/s:30:30/" + ServeProcess.plain(source) + "@png"))
        }
        let first = try get("s3://e2e/pub/a.png")
        #expect(first.status == 200 && Self.pngSize(first.body).map { $0 == (30, 15) } == true, "\(first.status) \(String(decoding: first.body.prefix(200), as: UTF8.self))")
        for outside in ["s3://e2e/public/a.png", "s3://e2e/private/a.png", "s3://e2e/pub/../private/a.png", "s3://other-bucket/pub/a.png"] {
            let reply = try get(outside)
            #expect(reply.status == 403, "\(outside): \(reply.status)")
        }
        // A new object under the same key: after the TTL the conditional request sees a new ETag, and every tier
        // keys the new bytes anew.
        try store.put(try Self.png(width: 40, height: 40), bucket: "e2e", key: "pub/a.png")
        usleep(1_300_000)
        let changed = try get("s3://e2e/pub/a.png")
        #expect(changed.status == 200 && Self.pngSize(changed.body).map { $0 == (30, 30) } == true, "\(String(describing: Self.pngSize(changed.body)))")
        #expect(serve.terminate() == 0)
    }
}
