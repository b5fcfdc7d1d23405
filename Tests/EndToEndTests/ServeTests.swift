import Foundation
import PipelineHost
import Testing
import TestSupport

/// `imagepipe serve` as a client sees it: real serve processes on loopback ports, a real HTTP origin, a real
/// redis-server; requests through curl.
@Suite(.serialized) struct ServeTests {
    let folder: String
    let root: String
    let host: PluginHost

    init() throws {
        folder = try TestPaths.temporaryDirectory("serve")
        root = folder + "/root"
        try FileManager.default.createDirectory(atPath: root + "/photos", withIntermediateDirectories: true)
        host = try PluginSandbox.host(loading: ["libPNGCoder.so"])
        var pixels: [UInt8] = []
        for y in 0..<300 { for x in 0..<400 { pixels += [UInt8(x * 255 / 399), UInt8(y * 255 / 299), 120, 255] } }
        let png = try host.coders.encode(try Image(width: 400, height: 300, bytes: pixels), format: "png")
        try Data(png).write(to: URL(fileURLWithPath: root + "/photos/a.png"))
        try Data(png).write(to: URL(fileURLWithPath: root + "/photos/image.png"))  // what the origin's /stall serves
        try Data(png).write(to: URL(fileURLWithPath: folder + "/outside.png"))
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: root + "/photos/bad.png"))
        try FileManager.default.createSymbolicLink(atPath: root + "/photos/escape.png", withDestinationPath: folder + "/outside.png")
    }

    /// A source the origin holds back for `seconds` before answering (its /stall serves image.png, a copy of
    /// a.png): a request for it is surely still in flight while the test does the next thing, however loaded the
    /// machine (a chunked /slowfile of 1.2 s was not, once, under the full suite).
    private func stalled(_ origin: TestHTTPServer, seconds: Double, tag: Int) -> String {
        ServeProcess.plain(origin.url("/stall?ms=\(Int(seconds * 1000))&n=\(tag)")) + "@png"
    }

    private func decode(_ reply: HTTPReply) throws -> Image {
        let coders = try PluginSandbox.host(loading: ["libPNGCoder.so", "libJPEGCoder.so", "libWebPCoder.so", "libAVIFCoder.so"]).coders
        return try coders.decode(data: reply.body)
    }

    @Test("signed URLs render; a bad or missing signature is 403; ETag and If-None-Match give 304; Cache-Control set")
    func signaturesAndConditionalRequests() throws {
        let serve = try ServeProcess(["--root", root])
        let path = serve.signed("/rs:fit:100:100/plain/" + "local%3A%2F%2F%2Fphotos%2Fa.png@png")
        let reply = try serve.get(path)
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self)) \(serve.standardError)")
        #expect(reply.headers["content-type"] == "image/png")
        #expect(reply.headers["cache-control"] == "public, max-age=3600")
        let image = try decode(reply)
        #expect(image.width == 100 && image.height == 75)
        let etag = try #require(reply.headers["etag"])
        let again = try serve.get(path, headers: ["If-None-Match": etag])
        #expect(again.status == 304 && again.body.isEmpty)
        #expect(try serve.get(path, headers: ["If-None-Match": "\"other\""]).status == 200)
        // Another signature, or the path changed under a valid one.
        var tampered = path
        tampered.replace("rs:fit:100:100", with: "rs:fit:900:900")
        #expect(try serve.get(tampered).status == 403)
        #expect(try serve.get("/unsafe/rs:fit:100:100/plain/local%3A%2F%2F%2Fphotos%2Fa.png@png").status == 403)
        #expect(try serve.get(serve.signed("/rs:fit:100:100/plain/local%3A%2F%2F%2Fphotos%2Fa.png@png"), method: "HEAD").status == 200)
        #expect(try serve.get(path, method: "POST").status == 405)
        // The base64url source form names the same image.
        let encoded = ServeProcess.base64URL(Array("local:///photos/a.png".utf8))
        let b64 = try serve.get(serve.signed("/s:50:0/\(encoded).png"))
        let small = try decode(b64)
        #expect(b64.status == 200 && small.width == 50)
        #expect(serve.terminate() == 0)
    }

    @Test("sources: no path escapes the root (.. or a link), missing is 404, remote hosts only under an allowed prefix")
    func sourcePolicy() throws {
        let origin = try TestHTTPServer(root: root + "/photos")
        defer { origin.stop() }
        let serve = try ServeProcess(["--root", root, "--allow-source", origin.url("/"), "--allow-private-addresses"])
        func status(_ source: String) throws -> Int {
            try serve.get(serve.signed("/s:64:64/" + ServeProcess.plain(source) + "@png")).status
        }
        #expect(try status("local:///photos/../../outside.png") == 403)
        #expect(try status("local:///photos/escape.png") == 403, "a symbolic link out of the root")
        #expect(try status("local:///photos/missing.png") == 404)
        #expect(try status("local:///photos/bad.png") == 422)
        #expect(try status(origin.url("/a.png")) == 200)
        #expect(try status(origin.url("/missing.png")) == 404)
        #expect(try status("http://example.invalid/a.png") == 403)
        #expect(try status("ftp://example.org/a.png") == 403)
        _ = serve.terminate()
        // Without --allow-private-addresses the loopback origin is refused even under an allowed prefix.
        let strict = try ServeProcess(["--allow-source", origin.url("/")])
        let refused = try strict.get(strict.signed("/s:64:64/" + ServeProcess.plain(origin.url("/a.png")) + "@png"))
        #expect(refused.status == 403, "\(refused.status) \(String(decoding: refused.body, as: UTF8.self))")
        #expect(try strict.get(strict.signed("/s:64:64/" + ServeProcess.plain("local:///a.png") + "@png")).status == 403, "no --root")
        _ = strict.terminate()
    }

    @Test("limits apply before work: size over --max-size is 400, pixels over --max-pixels 413, input over --max-input 413, a slow origin 504")
    func limits() throws {
        let origin = try TestHTTPServer(root: root + "/photos")
        defer { origin.stop() }
        let serve = try ServeProcess(["--root", root, "--max-size", "512", "--max-pixels", "200000", "--max-input", "1K",
                                      "--allow-source", origin.url("/"), "--allow-private-addresses", "--timeout", "1"])
        let a = ServeProcess.plain("local:///photos/a.png") + "@png"
        #expect(try serve.get(serve.signed("/s:600:600/" + a)).status == 400)
        #expect(try serve.get(serve.signed("/s:100:100/" + a)).status == 413, "the 400x300 PNG is over 1K of input")
        #expect(try serve.get(serve.signed("/s:100:100/" + ServeProcess.plain(origin.url("/stall?ms=5000")) + "@png")).status == 504)
        _ = serve.terminate()
        let pixels = try ServeProcess(["--root", root, "--max-pixels", "100000"])
        #expect(try pixels.get(pixels.signed("/s:100:100/" + a)).status == 413, "120,000 decoded pixels over 100,000")
        #expect(try pixels.get(pixels.signed("/bogus:1/" + a)).status == 400)
        _ = pixels.terminate()
    }

    @Test("without a format, Accept chooses AVIF, then WebP, else JPEG, and the answer varies on Accept")
    func acceptNegotiation() throws {
        let serve = try ServeProcess(["--root", root])
        let path = serve.signed("/s:64:64/" + ServeProcess.plain("local:///photos/a.png"))
        for (accept, type) in [("image/avif,image/webp,*/*", "image/avif"), ("image/webp,*/*", "image/webp"), ("*/*", "image/jpeg")] {
            let reply = try serve.get(path, headers: ["Accept": accept])
            #expect(reply.status == 200 && reply.headers["content-type"] == type, "\(accept): \(reply.headers)")
            #expect(reply.headers["vary"] == "Accept")
            let image = try decode(reply)
            #expect(image.width == 64)
        }
        let fixed = try serve.get(serve.signed("/s:64:64/" + ServeProcess.plain("local:///photos/a.png") + "@png"), headers: ["Accept": "image/webp"])
        #expect(fixed.headers["content-type"] == "image/png" && fixed.headers["vary"] == nil)
        _ = serve.terminate()
    }

    @Test("/health, /metrics (Prometheus text), an access log line per request, 503 with Retry-After when full")
    func observabilityAndBackpressure() throws {
        let origin = try TestHTTPServer(root: root + "/photos")
        defer { origin.stop() }
        let serve = try ServeProcess(["--root", root, "--concurrency", "1", "--queue", "0", "--allow-source", origin.url("/"),
                                      "--allow-private-addresses"])
        #expect(try serve.get("/health").status == 200)
        let firstPath = serve.signed("/s:32:32/" + stalled(origin, seconds: 4, tag: 1))
        let secondPath = serve.signed("/s:32:32/" + stalled(origin, seconds: 4, tag: 2))
        let first = BackgroundRequest { try serve.get(firstPath) }
        try serve.waitForRequestsInProgress(1)
        let second = try serve.get(secondPath)
        #expect(second.status == 503 && second.headers["retry-after"] == "1", "\(second.status)")
        #expect(try first.wait().status == 200)
        _ = try serve.get(serve.signed("/s:32:32/" + ServeProcess.plain("local:///photos/a.png") + "@png"))
        _ = try serve.get(serve.signed("/s:32:32/" + ServeProcess.plain("local:///photos/a.png") + "@png"))
        let metrics = String(decoding: try serve.get("/metrics").body, as: UTF8.self)
        #expect(metrics.contains("imagepipe_requests_total{status=\"200\"}"))
        #expect(metrics.contains("imagepipe_requests_total{status=\"503\"} 1"))
        #expect(metrics.contains("imagepipe_request_duration_seconds_bucket{le=\"+Inf\"}"))
        #expect(metrics.contains("imagepipe_cache_hits_total{tier=\"memory\"} 1"))
        #expect(metrics.contains("imagepipe_renders_total 2"))
        #expect(metrics.contains("imagepipe_worker_restarts_total"))
        _ = serve.terminate()
        let lines = serve.standardError.split(separator: "\n").filter { $0.hasPrefix("{\"time\"") }
        #expect(lines.count >= 6, "\(serve.standardError)")
        #expect(lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil })
    }

    @Test("SIGTERM: the request in flight completes, new connections are refused, the process exits 0")
    func gracefulShutdown() throws {
        let origin = try TestHTTPServer(root: root + "/photos")
        defer { origin.stop() }
        let serve = try ServeProcess(["--root", root, "--allow-source", origin.url("/"), "--allow-private-addresses"])
        let slow = serve.signed("/s:32:32/" + stalled(origin, seconds: 3, tag: 1))
        let inFlight = BackgroundRequest { try serve.get(slow) }
        try serve.waitForRequestsInProgress(1)
        kill(serve.pid, SIGTERM)
        usleep(200_000)
        let late = try? HTTPReply.fetch(serve.url("/health"))
        #expect(late == nil || late?.status == 503, "a new request after SIGTERM: \(String(describing: late?.status))")
        #expect(try inFlight.wait().status == 200, "the request in flight finished")
        #expect(serve.terminate(within: 20) == 0, "exit status after draining")
        #expect(serve.standardError.contains("stopped (0 request(s) still open"))
    }

    @Test("two instances sharing one Redis render a thumbnail once between them; Redis killed mid-run: still renders, logged once")
    func sharedRedisTier() throws {
        guard let redis = try RedisServer.startIfAvailable() else { return }
        let shared = ["--root", root, "--redis", redis.configuration("ns=serve-test timeout-ms=200")]
        let a = try ServeProcess(shared), b = try ServeProcess(shared)
        let path = a.signed("/rs:aspect-fill:80:80/" + ServeProcess.plain("local:///photos/a.png") + "@webp")
        let first = try a.get(path), second = try b.get(path)
        #expect(first.status == 200 && second.status == 200)
        #expect(first.body == second.body && first.headers["etag"] == second.headers["etag"])
        let metricsA = String(decoding: try a.get("/metrics").body, as: UTF8.self)
        let metricsB = String(decoding: try b.get("/metrics").body, as: UTF8.self)
        #expect(metricsA.contains("imagepipe_renders_total 1"))
        #expect(metricsB.contains("imagepipe_renders_total 0") && metricsB.contains("imagepipe_cache_hits_total{tier=\"shared\"} 1"), "\(metricsB)")
        redis.stop()
        for size in [40, 41, 42, 43] {
            let reply = try b.get(b.signed("/s:\(size):\(size)/" + ServeProcess.plain("local:///photos/a.png") + "@png"))
            #expect(reply.status == 200)
        }
        let warnings = b.standardError.components(separatedBy: "the cache tier is skipped").count - 1
        #expect(warnings == 1, "\(b.standardError)")
        _ = a.terminate()
        _ = b.terminate()
    }
}
