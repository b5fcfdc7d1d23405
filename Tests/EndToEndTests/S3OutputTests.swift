import Foundation
import Testing
import TestSupport

/// Results in object storage as users meet them, against a real SeaweedFS: `render -o s3://…`, a batch with
/// `--out-dir s3://…` that a rerun finds up to date (the stamp is the object's metadata), and two `serve`
/// instances sharing `--result-store`, which render a thumbnail once between them and keep answering when the
/// store goes away.
@Suite("s3:// outputs and the durable result store")
struct S3OutputTests {
    static let bucket = "e2e-out"

    /// The AWS variables for the test's store, as a user's shell would have them (and nothing from ~/.aws).
    static func environment(_ store: SeaweedFS, home: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("AWS_") }
        environment["HOME"] = home
        environment["AWS_ACCESS_KEY_ID"] = SeaweedFS.accessKey
        environment["AWS_SECRET_ACCESS_KEY"] = SeaweedFS.secretKey
        environment["AWS_ENDPOINT_URL"] = store.endpoint
        return environment
    }

    static func imagepipe(_ arguments: [String], _ environment: [String: String]) throws -> ProcessResult {
        try CommandLine.run(TestPaths.imagepipeBinary, arguments + ["--plugin-dir", TestPaths.pluginsDirectory], environment: environment)
    }

    static func statuses(_ run: ProcessResult) -> [String: String] {
        var found: [String: String] = [:]
        for line in run.stdout.split(separator: "\n") where line.contains("\"type\":\"output\"") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let output = object["output"] as? String, let status = object["status"] as? String else { continue }
            found[output] = status
        }
        return found
    }

    @Test("render -o s3:// stores the image with its media type; a batch into --out-dir s3:// is up to date on a rerun, and a changed source is written again")
    func cliOutputs() throws {
        let store = try SeaweedFS.shared()
        try store.makeBucket(Self.bucket)
        let folder = try TestPaths.temporaryDirectory("s3-output")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
        for (index, name) in ["a", "b", "c"].enumerated() {  // 60×40, 70×40 and 80×40
            _ = try TestFiles.write(try S3SourceTests.png(width: 60 + index * 10, height: 40), to: "\(folder)/in/\(name).png")
        }
        let environment = Self.environment(store, home: folder)

        let render = try Self.imagepipe(["render", folder + "/in/a.png", "-o", "s3://\(Self.bucket)/render/a one.webp", "--size", "30x30"], environment)
        #expect(render.status == 0, "\(render.stderr)")
        let head = try store.head("/\(Self.bucket)/" + SeaweedFS.encoded("render/a one.webp"))
        #expect(head.status == 200 && head.headers["content-type"] == "image/webp", "\(head)")
        let stored = try store.object(bucket: Self.bucket, key: "render/a one.webp") ?? []
        #expect(stored.starts(with: Array("RIFF".utf8)) && stored.count > 30, "a WebP file")

        let batch = [folder + "/in", "--size", "20", "--out-dir", "s3://\(Self.bucket)/thumbs", "-o", "%s.png", "--json"]
        let first = try Self.imagepipe(["thumbnail"] + batch, environment)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(Self.statuses(first).values.sorted() == ["written", "written", "written"], "\(first.stdout)")
        #expect(try store.keys(bucket: Self.bucket, prefix: "thumbs/").sorted() == ["thumbs/a.png", "thumbs/b.png", "thumbs/c.png"])
        #expect(S3SourceTests.pngSize(try store.object(bucket: Self.bucket, key: "thumbs/b.png") ?? []).map { $0 == (20, 11) } == true)
        #expect(try store.head("/\(Self.bucket)/thumbs/b.png").headers["x-amz-meta-imagepipe-thumbnail"] != nil, "the stamp is metadata")

        let again = try Self.imagepipe(["thumbnail"] + batch, environment)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(Self.statuses(again).values.sorted() == ["up-to-date", "up-to-date", "up-to-date"], "\(again.stdout)")

        // b.png changes after its thumbnail was stored: only its thumbnail is written again.
        _ = try TestFiles.write(try S3SourceTests.png(width: 40, height: 40), to: folder + "/in/b.png")
        let later = Date().addingTimeInterval(120)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: folder + "/in/b.png")
        let changed = try Self.imagepipe(["thumbnail"] + batch, environment)
        #expect(changed.status == 0, "\(changed.stderr)")
        let statuses = Self.statuses(changed)
        #expect(statuses["s3://\(Self.bucket)/thumbs/b.png"] == "written" && statuses.values.filter { $0 == "up-to-date" }.count == 2, "\(changed.stdout)")
        #expect(S3SourceTests.pngSize(try store.object(bucket: Self.bucket, key: "thumbs/b.png") ?? []).map { $0 == (20, 20) } == true)
    }

    @Test("two serve instances sharing --result-store render once between them; the store gone, requests are still answered and it is logged once")
    func sharedResultStore() throws {
        let store = try SeaweedFS.shared()
        try store.makeBucket(Self.bucket)
        let root = try TestPaths.temporaryDirectory("s3-result-store")
        defer { try? FileManager.default.removeItem(atPath: root) }
        _ = try TestFiles.write(try S3SourceTests.png(width: 120, height: 80), to: root + "/a.png")
        // The tier reaches the store through a proxy the test can take away (the store itself serves other suites).
        let proxy = try FaultProxy(upstream: store.port, failures: 0)
        defer { proxy.stop() }
        let client = store.loaderConfiguration.replacingOccurrences(of: store.endpoint, with: proxy.endpoint)
        let prefix = "results-\(UUID().uuidString.prefix(8))"
        let arguments = ["--root", root, "--result-store", "s3://\(Self.bucket)/\(prefix) ttl=3600 timeout-ms=3000"]
            + client.split(separator: "\n").flatMap { ["--loader-option", "s3:" + $0] }
        let a = try ServeProcess(arguments), b = try ServeProcess(arguments)
        let path = a.signed("/rs:fit:50:50/" + ServeProcess.plain("local:///a.png") + "@webp")
        let first = try a.get(path)
        #expect(first.status == 200)
        // The store is written in the background: wait for the object before asking the other instance.
        var stored: [String] = []
        for _ in 0..<100 {
            stored = try store.keys(bucket: Self.bucket, prefix: prefix + "/")
            if !stored.isEmpty { break }
            usleep(100_000)
        }
        #expect(stored.count == 1, "one result object under the prefix: \(stored)")
        let second = try b.get(path)
        #expect(second.status == 200 && second.body == first.body && second.headers["etag"] == first.headers["etag"])
        let metricsB = String(decoding: try b.get("/metrics").body, as: UTF8.self)
        #expect(metricsB.contains("imagepipe_renders_total 0") && metricsB.contains("imagepipe_cache_hits_total{tier=\"durable\"} 1"), "\(metricsB)")
        #expect(b.standardError.contains("\"tier\":\"durable\""), "the access log names the tier")

        proxy.stop()
        for size in [30, 31, 32, 33, 34] {
            let reply = try b.get(b.signed("/s:\(size):\(size)/" + ServeProcess.plain("local:///a.png") + "@png"))
            #expect(reply.status == 200, "with the store gone: \(reply.status)")
            usleep(300_000)
        }
        let warnings = b.standardError.components(separatedBy: "serving without it until it answers again").count - 1
        #expect(warnings == 1, "\(b.standardError)")
        #expect(a.terminate() == 0)
        #expect(b.terminate() == 0)
    }
}
