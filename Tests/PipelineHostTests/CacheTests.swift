import Foundation
import PipelineHost
import Testing
import TestSupport

/// Memory cache, disk cache and the hash behind disk file names.
@Suite struct CacheTests {
    private func image(_ value: UInt8, size: Int = 10) throws -> Image {
        try Image(width: size, height: size, bytes: [UInt8](repeating: value, count: size * size * 4))
    }

    @Test func sha256MatchesTheFIPSVectors() {
        #expect(SHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(String(repeating: "a", count: 1000)) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    @Test func memoryCacheEvictsTheLeastRecentlyUsedByCount() throws {
        let cache = MemoryCache(limits: .init(maxBytes: 1 << 30, maxCount: 3))
        for (index, key) in ["a", "b", "c"].enumerated() { cache.store(try image(UInt8(index)), for: key) }
        _ = cache.image(for: "a")  // a is now the most recent; b the least
        cache.store(try image(9), for: "d")
        #expect(cache.image(for: "b") == nil)
        #expect(cache.image(for: "a")?.pixel(x: 0, y: 0).r == 0)
        #expect(cache.image(for: "c") != nil && cache.image(for: "d") != nil)
        #expect(cache.statistics.entryCount == 3)
    }

    @Test func memoryCacheEvictsByByteCost() throws {
        let cache = MemoryCache(limits: .init(maxBytes: 1000, maxCount: 100))  // a 10x10 RGBA image costs 400 bytes
        cache.store(try image(1), for: "a")
        cache.store(try image(2), for: "b")
        cache.store(try image(3), for: "c")
        #expect(cache.image(for: "a") == nil)
        #expect(cache.statistics.totalBytes == 800)
        cache.store(try image(4, size: 100), for: "huge")  // larger than the whole cache: not stored
        #expect(cache.image(for: "huge") == nil && cache.image(for: "c") != nil)
        let stats = cache.statistics
        #expect(stats.hits == 1 && stats.misses == 2)
    }

    @Test func memoryCacheIsSafeUnderConcurrentUse() async throws {
        let cache = MemoryCache(limits: .init(maxBytes: 1 << 20, maxCount: 50))
        let images = try (0..<10).map { try image(UInt8($0)) }
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for i in 0..<2000 {
                        let key = "k\((i * 7 + worker) % 120)"
                        if cache.image(for: key) == nil { cache.store(images[i % 10], for: key) }
                        if i % 97 == 0 { cache.removeImage(for: key) }
                    }
                }
            }
        }
        #expect(cache.statistics.entryCount <= 50)
    }

    @Test func diskCacheRoundTripsAndNeverUsesTheKeyAsAPath() async throws {
        let folder = try TestPaths.temporaryDirectory()
        let cache = try DiskCache(directory: folder)
        let key = "../../etc/passwd|ip1|https://example.com/a b?c=d"
        try await cache.store([1, 2, 3], for: key)
        #expect(try await cache.data(for: key) == [1, 2, 3])
        #expect(try await cache.data(for: "other") == nil)
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder).filter { !$0.hasSuffix("/") && $0.count > 3 }
        #expect(files.count == 1)
        #expect(files.allSatisfy { $0.range(of: "^[0-9a-f]{2}/[0-9a-f]{64}$", options: .regularExpression) != nil }, "\(files)")
        try await cache.store([4], for: key)
        #expect(try await cache.data(for: key) == [4])
        try await cache.removeData(for: key)
        #expect(try await cache.data(for: key) == nil)
    }

    @Test func corruptOrTruncatedEntriesAreMissesAndRemoved() async throws {
        let folder = try TestPaths.temporaryDirectory()
        let cache = try DiskCache(directory: folder)
        try await cache.store(Array(repeating: 7, count: 1000), for: "k")
        let file = try #require(try FileManager.default.subpathsOfDirectory(atPath: folder).first { $0.count > 3 })
        let path = folder + "/" + file
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count - 10] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(try await cache.data(for: "k") == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        try await cache.store(Array(repeating: 7, count: 1000), for: "k")
        try Data(bytes.prefix(100)).write(to: URL(fileURLWithPath: path))
        #expect(try await cache.data(for: "k") == nil)
    }

    @Test func trimRemovesTheLeastRecentlyUsedAndTheExpired() async throws {
        let folder = try TestPaths.temporaryDirectory()
        let cache = try DiskCache(directory: folder, configuration: .init(maxBytes: 1_000_000, maxAge: 3600, fsync: false))
        for i in 0..<5 { try await cache.store([UInt8](repeating: UInt8(i), count: 100_000), for: "k\(i)") }
        // Age k0 and k1 by hand: k0 beyond max age, k1 old but within it.
        let stale = try #require(try FileManager.default.subpathsOfDirectory(atPath: folder).first {
            $0.hasSuffix(SHA256.hex("k0"))
        })
        var times = [timespec(tv_sec: time(nil) - 7200, tv_nsec: 0), timespec(tv_sec: time(nil) - 7200, tv_nsec: 0)]
        utimensat(AT_FDCWD, folder + "/" + stale, &times, 0)
        #expect(cache.trim() == 1)
        #expect(try await cache.data(for: "k0") == nil)
        #expect(try await cache.data(for: "k4") != nil)
        // Over the size limit: the least recently used go first, down to 90 %.
        let small = try DiskCache(directory: folder, configuration: .init(maxBytes: 250_000, maxAge: 3600, fsync: false))
        _ = try await small.data(for: "k1")  // k1 becomes the most recently used
        small.trim()
        #expect(try await small.data(for: "k1") != nil)
        #expect(await small.statistics().entryCount == 2)
    }

    @Test func aWriterKilledMidStoreLeavesNoServedEntry() async throws {
        // Given a process storing a large value, killed with SIGKILL while it writes
        let folder = try TestPaths.temporaryDirectory()
        let big = folder + "-big.bin"
        FileManager.default.createFile(atPath: big, contents: Data(count: 300 << 20))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestPaths.imagepipeBinary)
        process.arguments = ["cache", "put", "victim", big, "--cache-dir", folder]
        try process.run()
        var sawTemporary = false
        for _ in 0..<6000 where !sawTemporary {  // up to 30 s: reading 300 MB comes first
            usleep(5000)
            sawTemporary = (try? FileManager.default.subpathsOfDirectory(atPath: folder))?.contains { $0.contains(".tmp-") } ?? false
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: big)
        #expect(sawTemporary, "the writer was killed before it started writing; the test proves nothing")
        // Then the key is a miss, in this process and in another
        let cache = try DiskCache(directory: folder)
        #expect(try await cache.data(for: "victim") == nil)
        let other = try CommandLine.run(TestPaths.imagepipeBinary, ["cache", "get", "victim", folder + "-out", "--cache-dir", folder])
        #expect(other.status == 1)
    }

    @Test func twoProcessesStoringTheSameKeyBothSucceed() async throws {
        let folder = try TestPaths.temporaryDirectory()
        let a = folder + "-a.bin", b = folder + "-b.bin"
        FileManager.default.createFile(atPath: a, contents: Data(repeating: 0xAA, count: 8 << 20))
        FileManager.default.createFile(atPath: b, contents: Data(repeating: 0xBB, count: 8 << 20))
        let runs = try [a, b].map { file -> Process in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: TestPaths.imagepipeBinary)
            p.arguments = ["cache", "put", "shared", file, "--cache-dir", folder]
            try p.run()
            return p
        }
        runs.forEach { $0.waitUntilExit() }
        #expect(runs.allSatisfy { $0.terminationStatus == 0 })
        let value = try #require(try await DiskCache(directory: folder).data(for: "shared"))
        #expect(value == [UInt8](repeating: 0xAA, count: 8 << 20) || value == [UInt8](repeating: 0xBB, count: 8 << 20))
    }

    @Test func cachesManagerPolicies() async throws {
        let first = try DiskCache(directory: try TestPaths.temporaryDirectory())
        let second = try DiskCache(directory: try TestPaths.temporaryDirectory())
        try await second.store([2], for: "only-in-second")
        try await first.store([1], for: "both")
        try await second.store([2], for: "both")
        for policy in [CachesManager.Policy.serial, .concurrent] {
            let manager = CachesManager(caches: [first, second], queryPolicy: policy)
            #expect(try await manager.data(for: "both") == [1], "\(policy): the highest cache wins")
            #expect(try await manager.data(for: "only-in-second") == [2])
        }
        #expect(try await CachesManager(caches: [first, second], queryPolicy: .highestOnly).data(for: "only-in-second") == nil)
        #expect(try await CachesManager(caches: [first, second], queryPolicy: .lowestOnly).data(for: "both") == [2])
        try await CachesManager(caches: [first, second], storePolicy: .lowestOnly).store([3], for: "new")
        let inFirst = try await first.data(for: "new"), inSecond = try await second.data(for: "new")
        #expect(inFirst == nil && inSecond == [3])
    }
}
