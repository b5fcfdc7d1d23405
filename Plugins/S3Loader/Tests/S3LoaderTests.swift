import Foundation
import PipelineHost
import Synchronization
import Testing
import TestSupport

/// The S3 loader against a real S3-compatible store (SeaweedFS on loopback, signatures checked): reads, keys that
/// need encoding, S3's error codes as statuses, conditional requests, limits, retries through a fault injector,
/// cancellation and its configuration. Only libS3Loader.so is loaded.
@Suite("S3 loader against SeaweedFS")
struct S3LoaderTests {
    static func loaders(_ configuration: String) throws -> LoadersManager {
        try PluginSandbox.host(loading: ["libS3Loader.so"], loaderConfigurations: ["s3": configuration]).loaders
    }

    /// The suite's bucket in the shared store ("s3tests"; a bucket is a SeaweedFS collection with volumes of its
    /// own, so the tests share one), holding `objects` under the test's own prefix.
    static func bucket(_ prefix: String, _ objects: [String: [UInt8]]) throws -> SeaweedFS {
        let store = try SeaweedFS.shared()
        try store.makeBucket("s3tests")
        for (key, bytes) in objects { try store.put(bytes, bucket: "s3tests", key: prefix + "/" + key) }
        return store
    }

    static func bytes(_ count: Int, seed: UInt64 = 7) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    static func failure(_ body: () async throws -> [UInt8]) async -> PipelineError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error as? PipelineError
        }
    }

    @Test("objects come back byte for byte, keys with spaces, '+', '%' and non-ASCII included, 24 at once")
    func reads() async throws {
        let objects = ["plain.bin": Self.bytes(200_000), "dir/with space+plus%25 ü.bin": Self.bytes(3_000, seed: 9), "empty.bin": []]
        let store = try Self.bucket("reads", objects)
        let loaders = try Self.loaders(store.loaderConfiguration)
        for (key, bytes) in objects {
            #expect(try await loaders.load(url: "s3://s3tests/reads/\(key)") == bytes, "\(key)")
        }
        // Many at once, on the loader's threads.
        let intact = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<24 { group.addTask { try await loaders.load(url: "s3://s3tests/reads/plain.bin") == objects["plain.bin"] } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(intact == 24)
    }

    @Test("S3's answers become statuses: NoSuchKey and NoSuchBucket not found, bad credentials and anonymous reads refused, never the secret in a message")
    func errors() async throws {
        let store = try Self.bucket("errors", ["a.bin": Self.bytes(100)])
        let loaders = try Self.loaders(store.loaderConfiguration)
        let missing = await Self.failure { try await loaders.load(url: "s3://s3tests/errors/missing.bin") }
        #expect(missing?.status == .notFound && "\(missing!)".contains("NoSuchKey"), "\(String(describing: missing))")
        let noBucket = await Self.failure { try await loaders.load(url: "s3://no-such-bucket-here/a.bin") }
        #expect(noBucket?.status == .notFound && "\(noBucket!)".contains("NoSuchBucket"), "\(String(describing: noBucket))")

        let wrongSecret = "endpoint=\(store.endpoint)\naccess-key-id=\(SeaweedFS.accessKey)\nsecret-access-key=not-the-secret-9876\ncredentials-source=profile 'ci'"
        let badSignature = await Self.failure { try await Self.loaders(wrongSecret).load(url: "s3://s3tests/errors/a.bin") }
        let text = "\(String(describing: badSignature))"
        #expect(badSignature?.status == .refused && text.contains("SignatureDoesNotMatch") && text.contains("profile 'ci'"), "\(text)")
        #expect(!text.contains("not-the-secret-9876"), "the secret was printed: \(text)")

        let unknownKey = "endpoint=\(store.endpoint)\naccess-key-id=NOSUCHKEY\nsecret-access-key=whatever-secret"
        let unknown = await Self.failure { try await Self.loaders(unknownKey).load(url: "s3://s3tests/errors/a.bin") }
        #expect(unknown?.status == .refused, "\(String(describing: unknown))")
        #expect(!"\(String(describing: unknown))".contains("whatever-secret"))

        let anonymous = await Self.failure { try await Self.loaders("endpoint=\(store.endpoint)").load(url: "s3://s3tests/errors/a.bin") }
        #expect(anonymous?.status == .refused && "\(anonymous!)".contains("no credentials"), "\(String(describing: anonymous))")
    }

    @Test("URLs that are not an object, or whose key could be collapsed on the way, fail before any request")
    func malformedURLs() async throws {
        let proxy = try FaultProxy(upstream: try SeaweedFS.shared().port, failures: 0)
        defer { proxy.stop() }
        let loaders = try Self.loaders("endpoint=\(proxy.endpoint)")
        for (url, status) in [("s3://bucket-only", PluginStatus.invalidData), ("s3://bucket/", .invalidData), ("s3://Bad_Bucket/x", .invalidData),
                              ("s3://ok-bucket/a/../secret", .invalidData), ("s3://ok-bucket/./x", .invalidData), ("s3://a/x", .invalidData),
                              ("s3://evil.com:80@x/y", .invalidData)] {
            let failure = await Self.failure { try await loaders.load(url: url) }
            #expect(failure?.status == status, "\(url): \(String(describing: failure))")
        }
        #expect(proxy.requests == 0, "a malformed URL reached the store")
    }

    @Test("the host's validators make a conditional GET: a 304 with the object's ETag, a 200 when it changed; response headers reach the host")
    func conditionalRequests() async throws {
        let store = try Self.bucket("conditional", ["a.bin": Self.bytes(5_000)])
        let loaders = try Self.loaders(store.loaderConfiguration)
        let seen = Mutex<LoadResponse?>(nil)
        let hooks = LoadHooks(validateResponse: { response in seen.withLock { $0 = response } })
        _ = try await loaders.load(url: "s3://s3tests/conditional/a.bin", options: LoadOptions(), hooks: hooks)
        let etag = try #require(seen.withLock { $0 }?.header("etag"))
        var options = LoadOptions()
        options.headers = ["If-None-Match: \(etag)"]
        let again = try await loaders.load(url: "s3://s3tests/conditional/a.bin", options: options, hooks: hooks)
        #expect(again.isEmpty && seen.withLock { $0 }?.statusCode == 304, "\(String(describing: seen.withLock { $0 }))")
        try store.put(Self.bytes(5_000, seed: 99), bucket: "s3tests", key: "conditional/a.bin")
        let changed = try await loaders.load(url: "s3://s3tests/conditional/a.bin", options: options, hooks: hooks)
        #expect(changed == Self.bytes(5_000, seed: 99) && seen.withLock { $0 }?.statusCode == 200)
        // The signature's headers are the loader's own.
        options.headers = ["x-amz-date: 20000101T000000Z"]
        let forged = await Self.failure { try await loaders.load(url: "s3://s3tests/conditional/a.bin", options: options) }
        #expect(forged?.status == .invalidData, "\(String(describing: forged))")
    }

    @Test("IP_LOADER_RANGES: a Range line gets the store's 206, only those bytes, and its Content-Range")
    func ranges() async throws {
        let object = Self.bytes(300_000, seed: 11)
        let store = try Self.bucket("ranges", ["a.bin": object])
        let loaders = try Self.loaders(store.loaderConfiguration)
        #expect(try #require(loaders.loader(for: "s3://s3tests/ranges/a.bin")).descriptor.capabilityNames.contains("ranges"))
        let seen = Mutex<LoadResponse?>(nil)
        let hooks = LoadHooks(validateResponse: { response in seen.withLock { $0 = response } })
        var options = LoadOptions()
        options.headers = ["Range: bytes=0-65535"]
        let prefix = try await loaders.load(url: "s3://s3tests/ranges/a.bin", options: options, hooks: hooks)
        #expect(prefix == Array(object.prefix(65_536)))
        #expect(seen.withLock { $0 }?.statusCode == 206 && seen.withLock { $0 }?.header("content-range") == "bytes 0-65535/300000",
                "\(String(describing: seen.withLock { $0 }))")
        options.headers = ["Range: bytes=299990-"]
        #expect(try await loaders.load(url: "s3://s3tests/ranges/a.bin", options: options, hooks: hooks) == Array(object.suffix(10)))
    }

    @Test("an object over the host's byte limit fails as limit exceeded before its body is read")
    func limits() async throws {
        let store = try Self.bucket("limits", ["big.bin": Self.bytes(300_000)])
        let loaders = try Self.loaders(store.loaderConfiguration)
        var options = LoadOptions()
        options.maxBytes = 100_000
        let failure = await Self.failure { try await loaders.load(url: "s3://s3tests/limits/big.bin", options: options) }
        #expect(failure?.status == .limitExceeded, "\(String(describing: failure))")
    }

    @Test("503 SlowDown is retried with backoff up to max-attempts, then reported with the store's code")
    func retries() async throws {
        let store = try Self.bucket("retries", ["a.bin": Self.bytes(1_000)])
        let credentials = "access-key-id=\(SeaweedFS.accessKey)\nsecret-access-key=\(SeaweedFS.secretKey)\nretry-base-ms=20"
        let recovering = try FaultProxy(upstream: store.port, failures: 2)
        defer { recovering.stop() }
        let bytes = try await Self.loaders("endpoint=\(recovering.endpoint)\n\(credentials)").load(url: "s3://s3tests/retries/a.bin")
        #expect(bytes == Self.bytes(1_000) && recovering.requests == 3, "requests: \(recovering.requests)")

        let overloaded = try FaultProxy(upstream: store.port, failures: 100)
        defer { overloaded.stop() }
        let failure = await Self.failure {
            try await Self.loaders("endpoint=\(overloaded.endpoint)\n\(credentials)\nmax-attempts=2").load(url: "s3://s3tests/retries/a.bin")
        }
        let text = "\(String(describing: failure))"
        #expect(failure?.status == .io && text.contains("SlowDown") && text.contains("2 attempts"), "\(text)")
        #expect(overloaded.requests == 2)
        // A store that cannot be reached at all is retried too, and named.
        let closed = try ClosedPort()
        defer { closed.release() }
        let unreachable = await Self.failure {
            try await Self.loaders("endpoint=http://127.0.0.1:\(closed.port)\n\(credentials)").load(url: "s3://s3tests/retries/a.bin")
        }
        #expect(unreachable?.status == .io && "\(unreachable!)".contains("127.0.0.1:\(closed.port)"), "\(String(describing: unreachable))")
    }

    @Test("a cancelled load that waits for the store ends promptly as cancelled")
    func cancellation() async throws {
        let store = try SeaweedFS.shared()
        let stalled = try FaultProxy(upstream: store.port, failures: 1, fault: .stall)
        defer { stalled.stop() }
        let loaders = try Self.loaders("endpoint=\(stalled.endpoint)\naccess-key-id=\(SeaweedFS.accessKey)\nsecret-access-key=\(SeaweedFS.secretKey)")
        // Deadlines far past the test: under a full suite the cancel can come later than the loader's default 30 s
        // first-byte deadline, which then ended the load first (a timeout, not the cancel this test is about).
        let patient = LoadOptions(timeout: 600, firstByteTimeout: 600)
        let load = Task { try await loaders.load(url: "s3://anything/x.bin", options: patient) }
        for _ in 0..<500 where stalled.requests < 1 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(stalled.requests == 1, "the load never reached the store")
        // Timed at the proxy, by the wall clock: the moment the loader lets go of the connection. (Timing the
        // task's resumption instead would time the test process's busy thread pool under a full suite.)
        let cancelled = Date().timeIntervalSince1970
        load.cancel()
        let failure = await Self.failure { try await load.value }
        let reported = Date().timeIntervalSince1970
        #expect(failure == .cancelled || failure?.status == .cancelled, "\(String(describing: failure))")
        // The proxy notes the close when its read returns, which may come just after the load's completion.
        for _ in 0..<300 where stalled.stalledClientClosedAt == nil { try await Task.sleep(for: .milliseconds(10)) }
        let closed = try #require(stalled.stalledClientClosedAt, "the loader never closed the connection")
        // What a late close is told apart by (it happened twice in full suites, 20.3 and 20.6 s, never alone): when
        // the load's end reached this test (a loader slow to act on the cancel, or a test starved of threads) and
        // the priority the load's thread inherited (libdispatch nices background tasks' threads to 10).
        #expect(closed - cancelled < 2.5, """
            the connection was closed \(closed - cancelled) s after the cancel; the load's end reached the test \
            \(reported - cancelled) s after it; the test ran at priority \(Task.currentPriority)
            """)
    }

    @Test("configuration: unknown keys, a key without its secret, bad endpoints and regions fail the open, naming them")
    func configuration() throws {
        for (configuration, named) in [("endpiont=http://x", "'endpiont'"), ("access-key-id=AK", "secret-access-key"),
                                       ("endpoint=ftp://x", "endpoint=ftp://x"), ("endpoint=http://h/path", "endpoint=http://h/path"),
                                       ("region=EU WEST", "region="), ("addressing=sideways", "addressing=sideways"), ("max-attempts=0", "max-attempts=0")] {
            let loaders = try Self.loaders(configuration)
            do {
                try loaders.openConfigured()
                Issue.record("\(configuration) was accepted")
            } catch {
                #expect("\(error)".contains(named), "\(configuration): \(error)")
            }
        }
        let source = try String(contentsOfFile: TestPaths.repositoryRoot + "/Sources/S3Client/S3Settings.swift", encoding: .utf8)
        #expect(!source.contains("getenv"))
    }
}
