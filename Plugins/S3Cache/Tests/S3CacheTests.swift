import Foundation
import PipelineHost
import Testing
import TestSupport

/// The S3 result tier alone (only libS3Cache.so is loaded) against a real S3-compatible store (SeaweedFS on
/// loopback, signatures checked): round trips under a prefix, the object's check of its own key, expiry, the
/// per-entry cap, clearing only its own prefix, configuration refusals, and fail-open when the store is gone.
@Suite("S3 result tier against SeaweedFS")
struct S3CacheTests {
    static func store(_ configuration: String) throws -> PluginDataCache {
        let host = try PluginSandbox.host(loading: ["libS3Cache.so"])
        let plugin = try #require(host.caches.pluginCaches.first { $0.descriptor.id == "org.imagepipe.cache.s3/1" })
        #expect(plugin.descriptor.capabilityNames.contains("persistent") && plugin.descriptor.capabilityNames.contains("shared"))
        return try plugin.open(configuration: configuration)
    }

    static func seaweed() throws -> SeaweedFS {
        let store = try SeaweedFS.shared()
        try store.makeBucket("s3cache")
        // The bucket's first write waits for SeaweedFS to allocate its volumes (seconds, on a busy machine): done here,
        // with the test tool's patience, not inside a tier's 2-second timeout.
        try store.put([0], bucket: "s3cache", key: "warm-up")
        return store
    }

    static func open(_ first: String, _ store: SeaweedFS) throws -> PluginDataCache {
        try Self.store(first + "\n" + store.loaderConfiguration)
    }

    static func value(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    @Test("values round-trip under the prefix, named by the key's SHA-256; another prefix is another tier; remove and clear touch only their own")
    func roundTrip() async throws {
        let store = try Self.seaweed()
        let a = try Self.open("s3://s3cache/round/a", store), b = try Self.open("s3://s3cache/round/b", store)
        let key = "ip2|image|s3://photos/2024/x.jpg|size=256x256|out=webp|q=0"
        let value = Self.value(300_000, seed: 1)
        #expect(try await a.data(for: key) == nil)
        try await a.store(value, for: key)
        #expect(try await a.data(for: key) == value)
        #expect(try await b.data(for: key) == nil, "another prefix")
        let name = "round/a/" + ServeProcess.hex(Array(SHA256Check.digest(key)))
        #expect(try store.request("HEAD", "/s3cache/" + name).status == 200, "the object is named by the key's SHA-256")
        try await b.store([1, 2, 3], for: "other")
        try await a.removeData(for: key)
        #expect(try await a.data(for: key) == nil)
        try await a.store(value, for: key)
        try await a.store([9], for: "second")
        try await a.removeAll()
        #expect(try await a.data(for: key) == nil)
        #expect(try await a.data(for: "second") == nil)
        #expect(try await b.data(for: "other") == [1, 2, 3], "clearing one prefix left the other alone")
    }

    @Test("an object holding another key's entry (a collision, a stray copy) is a miss, never another image")
    func keyCheck() async throws {
        let store = try Self.seaweed()
        let tier = try Self.open("s3://s3cache/check", store)
        try await tier.store([1, 2, 3, 4], for: "first")
        try await tier.store([5, 6, 7, 8], for: "second")
        let first = "/s3cache/check/" + ServeProcess.hex(Array(SHA256Check.digest("first")))
        let second = "/s3cache/check/" + ServeProcess.hex(Array(SHA256Check.digest("second")))
        // Copy second's object over first's name.
        let copied = try store.request("GET", second)
        let file = NSTemporaryDirectory() + "s3cache-\(UUID().uuidString)"
        try Data(copied.body.utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(try store.request("PUT", first, upload: file).status == 200)
        #expect(try await tier.data(for: "first") == nil)
        #expect(try await tier.data(for: "second") == [5, 6, 7, 8])
    }

    @Test("entries expire after ttl; an entry over max-entry is not stored (and the put is no failure)")
    func ttlAndCap() async throws {
        let store = try Self.seaweed()
        // The cap and the expiry, each judged where timing cannot fool it: what the store holds after the puts (read
        // with curl), and a miss once the ttl has passed. That a stored entry is served is roundTrip's check.
        let lasting = try Self.open("s3://s3cache/ttl ttl=60 max-entry=1000 timeout-ms=15000", store)
        // The stamp is judged against the clock around the put, never against a later read: under the whole suite a
        // test task can wait minutes for a cooperative thread (other tests block theirs on subprocesses), long
        // enough for an entry to expire before the next line runs.
        let before = Int(Date().timeIntervalSince1970)
        try await lasting.store([UInt8](repeating: 1, count: 1000), for: "small")
        let after = Int(Date().timeIntervalSince1970)
        try await lasting.store([UInt8](repeating: 2, count: 1001), for: "big")
        let small = try store.object(bucket: "s3cache", key: "ttl/" + ServeProcess.hex(Array(SHA256Check.digest("small")))) ?? []
        let header = String(decoding: small.prefix(while: { $0 != 10 }), as: UTF8.self).split(separator: " ")
        #expect(small.count == 1000 + header.joined(separator: " ").utf8.count + 1 + 5 && header.first == "imagepipe-result/1", "\(header)")
        let expires = header.count == 3 ? Int(header[1]) ?? 0 : 0
        #expect((before + 60)...(after + 60) ~= expires, "expires \(expires), stored between \(before) and \(after): ttl=60")
        #expect(try store.head("/s3cache/ttl/" + ServeProcess.hex(Array(SHA256Check.digest("big")))).status == 404, "over the cap, not stored")
        #expect(try await lasting.data(for: "big") == nil)
        // Expiry is whole seconds: an entry with ttl=1 is served for at most a second.
        let brief = try Self.open("s3://s3cache/ttl ttl=1 timeout-ms=15000", store)
        try await brief.store([3, 4, 5], for: "brief")
        try await Task.sleep(nanoseconds: 2_100_000_000)
        #expect(try await brief.data(for: "brief") == nil, "expired")
        #expect(try store.object(bucket: "s3cache", key: "ttl/" + ServeProcess.hex(Array(SHA256Check.digest("brief")))) != nil,
                "expired entries stay until replaced (a lifecycle rule bounds the bucket); the tier reads them as misses")
    }

    @Test("configuration: a location is required, unknown keys and bad values are refused by name")
    func configuration() throws {
        let store = try Self.seaweed()
        for (text, expected) in [("", "needs a location"), ("redis://x", "s3://BUCKET/PREFIX"), ("s3://Bad_Bucket/p", "not an S3 bucket name"),
                                 ("s3://s3cache/p colour=red", "unknown cache setting 'colour'"), ("s3://s3cache/p ttl=-1", "ttl=-1"),
                                 ("s3://s3cache/../p", "'..'")] {
            do {
                _ = try Self.store(text + (text.isEmpty ? "" : "\n" + store.loaderConfiguration))
                Issue.record("'\(text)' was accepted")
            } catch {
                #expect("\(error)".contains(expected), "'\(text)': \(error)")
            }
        }
    }

    @Test("fail-open: a store in trouble (503 SlowDown) is a miss, then skipped without any request for a second, then asked again")
    func failOpen() async throws {
        let store = try Self.seaweed()
        // Every request answered 503 SlowDown by a fault injector in front of the real store.
        let proxy = try FaultProxy(upstream: store.port, failures: 1_000_000)
        defer { proxy.stop() }
        let configuration = store.loaderConfiguration.replacingOccurrences(of: store.endpoint, with: proxy.endpoint)
        let tier = try Self.store("s3://s3cache/down timeout-ms=2000\n" + configuration)
        let asked = Date()
        await #expect(throws: (any Error).self) { try await tier.data(for: "k") }
        let afterFirst = proxy.requests
        #expect(afterFirst >= 1 && afterFirst <= 2, "one attempt and at most one retry: \(afterFirst)")
        for _ in 0..<5 { await #expect(throws: (any Error).self) { try await tier.store([1], for: "k") } }
        // The second counts from the failure, which came after `asked`: five calls take milliseconds, but on a machine
        // so busy that this task resumes late, the second may be over and a call asks the store again.
        #expect(proxy.requests == afterFirst || Date().timeIntervalSince(asked) > 1.0, "down: no request reached the store for a second")
        try await Task.sleep(nanoseconds: 1_200_000_000)
        await #expect(throws: (any Error).self) { try await tier.data(for: "k") }
        #expect(proxy.requests > afterFirst, "after the second, the store is asked again")
        // A store that answers serves at once.
        let live = try Self.open("s3://s3cache/up", store)
        try await live.store([7], for: "k")
        #expect(try await live.data(for: "k") == [7])
    }
}

/// SHA-256 by the openssl tool, to name objects independently of the plugin's own digest.
enum SHA256Check {
    static func digest(_ text: String) -> [UInt8] {
        let file = NSTemporaryDirectory() + "sha-\(UUID().uuidString)"
        try? Data(text.utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let hex = (try? CommandLine.run("/usr/bin/openssl", ["dgst", "-sha256", "-r", file]).stdout) ?? ""
        let digits = Array(hex.prefix(64))
        return stride(from: 0, to: digits.count, by: 2).compactMap { UInt8(String(digits[$0...$0 + 1]), radix: 16) }
    }
}
