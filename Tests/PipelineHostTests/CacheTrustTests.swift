import Foundation
import PipelineHost
import Testing
import TestSupport

/// The disk cache serves only what this user wrote: a folder or entry that another user owns or could write is
/// refused, and the temporary files of interrupted writes are counted and cleaned up.
@Suite struct CacheTrustTests {
    static var isRoot: Bool { geteuid() == 0 }

    @Test func aGroupOrWorldWritableCacheFolderIsRefused() throws {
        for mode: mode_t in [0o770, 0o707, 0o1777] {
            let folder = try TestPaths.temporaryDirectory("cache-trust")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            chmod(folder, mode)
            let error = #expect(throws: PipelineError.self) { _ = try DiskCache(directory: folder) }
            #expect("\(error.map { "\($0)" } ?? "")".contains(mode & 0o002 != 0 ? "world-writable" : "group-writable"),
                    "mode \(String(mode, radix: 8)): \(String(describing: error))")
        }
    }

    @Test(.enabled(if: isRoot, "needs root to give a folder to another user"))
    func aCacheFolderOwnedByAnotherUserIsRefused() throws {
        let folder = try TestPaths.temporaryDirectory("cache-trust")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        chown(folder, 65534, 65534)
        let error = #expect(throws: PipelineError.self) { _ = try DiskCache(directory: folder) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("is owned by uid 65534"), "\(String(describing: error))")
    }

    @Test func aNewCacheFolderIsPrivate() async throws {
        let parent = try TestPaths.temporaryDirectory("cache-trust")
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let cache = try DiskCache(directory: parent + "/a/b/cache")
        try await cache.store([1, 2, 3], for: "key")
        for path in [parent + "/a", parent + "/a/b", cache.directory] {
            #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o700, "\(path)")
        }
    }

    @Test func anEntryThatIsALinkOrNotOwnedIsNeverServed() async throws {
        let folder = try TestPaths.temporaryDirectory("cache-trust")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = try DiskCache(directory: folder)
        try await cache.store(Array("mine".utf8), for: "https://example.com/a.png")
        #expect(try await cache.data(for: "https://example.com/a.png") == Array("mine".utf8))
        // Find the entry file and replace it by a link to a copy of itself: same bytes, but not followed.
        let entry = try #require(FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String }
            .first { !$0.hasPrefix(".") && $0.count > 3 })
        let path = folder + "/" + entry
        try FileManager.default.moveItem(atPath: path, toPath: folder + "/elsewhere")
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: folder + "/elsewhere")
        #expect(try await cache.data(for: "https://example.com/a.png") == nil)
        if Self.isRoot {
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.moveItem(atPath: folder + "/elsewhere", toPath: path)
            #expect(try await cache.data(for: "https://example.com/a.png") == Array("mine".utf8))
            chown(path, 65534, 65534)
            #expect(try await cache.data(for: "https://example.com/a.png") == nil, "another user's entry was served")
        }
    }

    @Test func temporaryFilesAreCountedAndStaleOnesRemoved() async throws {
        let folder = try TestPaths.temporaryDirectory("cache-trust")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = try DiskCache(directory: folder)
        try await cache.store([UInt8](repeating: 7, count: 100), for: "entry")
        try FileManager.default.createDirectory(atPath: folder + "/ab", withIntermediateDirectories: true)
        let stale = try TestFiles.write([UInt8](repeating: 0, count: 5000), to: folder + "/ab/.tmp-1-1")
        let young = try TestFiles.write([UInt8](repeating: 0, count: 3000), to: folder + "/ab/.tmp-1-2")
        var old = [timespec(tv_sec: time(nil) - 600, tv_nsec: 0), timespec(tv_sec: time(nil) - 600, tv_nsec: 0)]
        utimensat(AT_FDCWD, stale, &old, 0)

        let before = await cache.statistics()
        #expect(before.entryCount == 1)
        #expect(before.temporaryFiles == 2)
        #expect(before.totalBytes > 8000, "temporary bytes count against the cache: \(before.totalBytes)")

        cache.trim()
        #expect(!FileManager.default.fileExists(atPath: stale), "prune must remove a temporary file older than a minute")
        #expect(FileManager.default.fileExists(atPath: young), "a young one may be a write in progress")
        #expect(await cache.statistics().temporaryFiles == 1)
        utimensat(AT_FDCWD, young, &old, 0)
        try await cache.removeAll()
        #expect(await cache.statistics() == CacheStatistics(name: "disk \(folder)", entryCount: 0, totalBytes: 0,
                                                            hits: 1 - 1, misses: 0, temporaryFiles: 0))
    }

    @Test func noDefaultCacheFolderWithoutAHome() throws {
        #expect(throws: PipelineError.self) { _ = try DiskCache.defaultDirectory(environment: [:]) }
        #expect(throws: PipelineError.self) { _ = try DiskCache.defaultDirectory(environment: ["HOME": "relative"]) }
        #expect(try DiskCache.defaultDirectory(environment: ["HOME": "/home/u"]) == "/home/u/.cache/imagepipe/default")
        #expect(try DiskCache.defaultDirectory(environment: ["HOME": "/home/u", "XDG_CACHE_HOME": "/c"]) == "/c/imagepipe/default")
    }
}
