import Foundation
import Synchronization
import Testing
import TestSupport

/// The service as a deployment runs it: three identical `serve` instances behind a real nginx, sharing one
/// redis-server (the hot tier) and an S3 result store (SeaweedFS, the durable tier). What a user behind the
/// balancer sees is what is checked: one render per thumbnail among all instances, and no failed request while an
/// instance dies and the shared stores go away.
@Suite("serve scale-out: three instances behind nginx", .serialized)
struct ScaleOutTests {
    /// Everything one deployment is made of; the pieces stop when it goes out of scope.
    final class Deployment: @unchecked Sendable {
        let root: String
        let redis: RedisServer
        /// The instances reach the S3 store through this proxy, so that a test can take the store away.
        let storeProxy: FaultProxy
        let store: SeaweedFS
        let prefix: String
        let instances: [ServeProcess]
        let balancer: NginxBalancer

        init(count: Int = 3) throws {
            try NginxBalancer.requireBinary()
            guard let redis = try RedisServer.startIfAvailable() else { throw TestSupportError("redis-server") }
            store = try SeaweedFS.shared()
            try store.makeBucket("scale-out")
            root = try TestPaths.temporaryDirectory("scale-out")
            _ = try TestFiles.write(try S3SourceTests.png(width: 160, height: 120), to: root + "/a.png")
            self.redis = redis
            storeProxy = try FaultProxy(upstream: store.port, failures: 0)
            prefix = "results-\(UUID().uuidString.prefix(8))"
            let client = store.loaderConfiguration.replacingOccurrences(of: store.endpoint, with: storeProxy.endpoint)
            let arguments = ["--root", root, "--redis", redis.configuration("ns=scale-out timeout-ms=300"),
                             "--result-store", "s3://scale-out/\(prefix) ttl=3600 timeout-ms=2000"]
                + client.split(separator: "\n").flatMap { ["--loader-option", "s3:" + $0] }
            instances = try (0..<count).map { _ in try ServeProcess(arguments) }
            balancer = try NginxBalancer(upstreams: instances.map(\.port))
        }

        deinit {
            balancer.stop()
            storeProxy.stop()
            redis.stop()
            try? FileManager.default.removeItem(atPath: root)
        }

        /// A signed thumbnail path (every instance has the same key and salt).
        func path(size: Int, format: String = "webp") -> String {
            instances[0].signed("/rs:fit:\(size):\(size)/" + ServeProcess.plain("local:///a.png") + "@\(format)")
        }

        /// Through the balancer, as a user's client asks.
        func get(_ path: String) throws -> HTTPReply { try HTTPReply.fetch(balancer.url(path)) }

        /// A counter of one instance's /metrics (asked directly, not through the balancer).
        static func metric(_ line: String, of instance: ServeProcess) throws -> Int {
            let text = String(decoding: try instance.get("/metrics").body, as: UTF8.self)
            guard let found = text.split(separator: "\n").first(where: { $0.hasPrefix(line + " ") }),
                  let value = Int(found.split(separator: " ").last ?? "") else { return 0 }
            return value
        }

        /// Waits until both shared tiers hold `count` results (the instances store in the background).
        func waitForStoredResults(_ count: Int) throws {
            for _ in 0..<100 {
                let inRedis = Int(try redis.cli(["DBSIZE"]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
                if inRedis >= count, try store.keys(bucket: "scale-out", prefix: prefix + "/").count >= count { return }
                usleep(50_000)
            }
            throw TestSupportError("the shared tiers did not receive \(count) result(s) within 5 s")
        }
    }

    @Test("each thumbnail is rendered once among three instances; a new instance with nothing in Redis answers from the S3 tier")
    func renderedOnce() throws {
        let deployment = try Deployment()
        let sizes = [40, 48, 56, 64]
        for (index, size) in sizes.enumerated() {
            let first = try deployment.get(deployment.path(size: size))
            #expect(first.status == 200)
            try deployment.waitForStoredResults(index + 1)
            for _ in 0..<5 {
                let again = try deployment.get(deployment.path(size: size))
                #expect(again.status == 200 && again.body == first.body && again.headers["etag"] == first.headers["etag"])
            }
        }
        let renders = try deployment.instances.map { try Deployment.metric("imagepipe_renders_total", of: $0) }
        #expect(renders.reduce(0, +) == sizes.count, "renders per instance: \(renders)")
        // Each instance's access log: thumbnail requests it answered (the /metrics requests are not counted).
        let answered = deployment.instances.map { $0.standardError.split(separator: "\n").filter { $0.contains("rs:fit") && $0.contains("\"status\":200") }.count }
        #expect(answered.allSatisfy { $0 > 0 }, "nginx spread the requests: \(answered)")
        let shared = try deployment.instances.map { try Deployment.metric("imagepipe_cache_hits_total{tier=\"shared\"}", of: $0) }
        #expect(shared.reduce(0, +) >= 2, "instances that had not rendered a thumbnail took it from Redis: \(shared)")

        // A new instance whose Redis holds nothing for it (its own namespace: as after Redis lost its data).
        let fresh = try ServeProcess(["--root", deployment.root, "--redis", deployment.redis.configuration("ns=scale-out-cold timeout-ms=300"),
                                      "--result-store", "s3://scale-out/\(deployment.prefix)"]
                                     + deployment.store.loaderConfiguration.split(separator: "\n").flatMap { ["--loader-option", "s3:" + $0] })
        let durable = try fresh.get(deployment.path(size: 48))
        #expect(durable.status == 200)
        #expect(try Deployment.metric("imagepipe_renders_total", of: fresh) == 0)
        #expect(try Deployment.metric("imagepipe_cache_hits_total{tier=\"durable\"}", of: fresh) == 1)
        #expect(fresh.terminate() == 0)
    }

    @Test("under load through nginx: an instance killed, then Redis stopped, then the S3 store gone; every request is answered 200")
    func failuresUnderLoad() throws {
        let deployment = try Deployment()
        let workers = 4, perWorker = 50
        let done = Mutex(0)
        let failures = Mutex<[String]>([])
        let victim = deployment.instances[1]
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for i in 0..<perWorker {
                // 30 distinct thumbnails, each asked several times: renders and shared-tier hits both happen.
                let size = 24 + (worker * perWorker + i) % 30
                do {
                    let reply = try deployment.get(deployment.path(size: size, format: i % 2 == 0 ? "webp" : "png"))
                    if reply.status != 200 { failures.withLock { $0.append("\(size): HTTP \(reply.status)") } }
                } catch {
                    failures.withLock { $0.append("\(size): \(error)") }
                }
                let count = done.withLock { count -> Int in count += 1; return count }
                switch count {
                case 40: kill(victim.pid, SIGKILL)
                case 90: deployment.redis.stop()
                case 140: deployment.storeProxy.stop()
                default: break
                }
            }
        }
        #expect(done.withLock { $0 } == workers * perWorker)
        #expect(failures.withLock { $0 }.isEmpty, "requests that failed behind nginx: \(failures.withLock { $0 })")
        #expect(deployment.balancer.errorLog.contains("127.0.0.1:\(victim.port)"), "nginx met the dead instance and retried: \(deployment.balancer.errorLog)")
        for instance in [deployment.instances[0], deployment.instances[2]] {
            let redisLines = instance.standardError.components(separatedBy: "the cache tier is skipped").count - 1
            let storeLines = instance.standardError.components(separatedBy: "serving without it until it answers again").count - 1
            #expect(redisLines <= 1 && storeLines <= 1, "one line per tier going away: \(instance.standardError.suffix(2000))")
            #expect(try HTTPReply.fetch(instance.url("/health")).status == 200)
        }
        let renders = try [deployment.instances[0], deployment.instances[2]].map { try Deployment.metric("imagepipe_renders_total", of: $0) }
        #expect(renders.reduce(0, +) > 0)
        for instance in [deployment.instances[0], deployment.instances[2]] { #expect(instance.terminate() == 0) }
    }
}
