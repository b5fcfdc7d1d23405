import Foundation
import PipelineHost
import Testing
import TestSupport

/// A cache plugin loaded through the ABI's cache slot, as a data cache of the pipeline and a tier of the manager.
@Suite struct CachePluginTests {
    private func cachePlugin() throws -> PluginCache {
        let folder = try TestPaths.temporaryDirectory()
        let output = folder + "/cache.so"
        let build = try CommandLine.run("/usr/bin/cc", [
            "-std=c11", "-O0", "-fPIC", "-shared", "-fvisibility=hidden", "-pthread", "-Wall", "-Wextra", "-Werror",
            "-I", TestPaths.repositoryRoot + "/Sources/PluginAPI/include", "-o", output,
            TestPaths.repositoryRoot + "/Tests/Fixtures/fixture_cache.c"])
        try #require(build.status == 0, "\(build.stderr)")
        chmod(output, 0o755)
        let host = PluginHost(searchPath: PluginSearchPath(directories: [folder]), cachePath: nil)
        return try #require(host.caches.pluginCaches.first)
    }

    @Test func aCachePluginStoresAndServesThroughTheAdapter() async throws {
        let store = try cachePlugin().open(configuration: "test")
        try await store.store([1, 2, 3], for: "k")
        #expect(try await store.data(for: "k") == [1, 2, 3])
        #expect(try await store.data(for: "missing") == nil)
        try await store.store([4], for: "k")
        #expect(try await store.data(for: "k") == [4])
        try await store.removeData(for: "k")
        #expect(try await store.data(for: "k") == nil)
        let stats = await store.statistics()
        #expect(stats.name.contains("cache"))
    }

    @Test func aCachePluginIsALowerTierBehindTheDiskCache() async throws {
        let plugin = try cachePlugin().open(configuration: nil)
        let disk = try DiskCache(directory: try TestPaths.temporaryDirectory())
        let manager = CachesManager(caches: [disk, plugin], queryPolicy: .serial, storePolicy: .concurrent)
        try await manager.store([7, 7], for: "shared")
        let inDisk = try await disk.data(for: "shared"), inPlugin = try await plugin.data(for: "shared")
        #expect(inDisk == [7, 7] && inPlugin == [7, 7], "stored into both tiers")
        try await disk.removeAll()
        #expect(try await manager.data(for: "shared") == [7, 7], "served by the plugin tier when the disk misses")
    }
}
