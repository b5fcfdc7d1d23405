import Foundation
import PipelineHost
import Testing
import TestSupport

/// The registry cache lets a scan route without dlopen, opens a plugin only when it is used, and notices changes.
@Suite struct RegistryCacheTests {
    /// Reads /proc/self/maps through `cat`: Foundation's file reading stops early on procfs files (size 0).
    private func isMapped(_ path: String) throws -> Bool {
        try CommandLine.shell("cat /proc/\(getpid())/maps").stdout.contains(path)
    }

    @Test func cachedPluginsOpenOnlyWhenUsed() throws {
        // Given a plugin whose inspection another process has cached
        let folder = try TestPaths.temporaryDirectory()
        let cache = folder + "-registry.json"
        let plugin = try FixturePlugins.build("lazy.so", in: folder, defines: [
            FixturePlugins.stringDefine("FIXTURE_ID", "org.test.lazy"), FixturePlugins.stringDefine("FIXTURE_MAGIC", "LAZY")])
        let listing = try CommandLine.run(TestPaths.imagepipeBinary, ["coders", "--no-default-plugins", "--plugin-dir", folder],
                                          environment: ["IMAGEPIPE_REGISTRY_CACHE": cache])
        #expect(listing.stdout.contains("org.test.lazy.coder/1"))
        #expect(FileManager.default.fileExists(atPath: cache))

        // When this process scans with that cache
        let registry = PluginRegistry.scan(PluginSearchPath(directories: [folder]), cachePath: cache)

        // Then the coder is routed from the cache without the library being mapped
        #expect(registry.coders.map(\.descriptor.id) == ["org.test.lazy.coder/1"])
        #expect(try !isMapped(plugin), "the scan must not dlopen a cached plugin")
        // And the first decode opens it
        let image = try PluginHost(registry: registry).coders.decode(data: Array("LAZY".utf8))
        #expect(image.width == 2)
        #expect(try isMapped(plugin), "the first decode opens the plugin")
    }

    @Test func aChangedFileIsInspectedAgain() throws {
        // Each scan runs in its own process: within one process a path, once opened, stays the library it was
        // (plugins are never unloaded), so only a new process can see a replaced file.
        let folder = try TestPaths.temporaryDirectory()
        let cache = folder + "-registry.json"
        let environment = ["IMAGEPIPE_REGISTRY_CACHE": cache]
        let arguments = ["coders", "--no-default-plugins", "--plugin-dir", folder]
        try FixturePlugins.build("p.so", in: folder, defines: [FixturePlugins.stringDefine("FIXTURE_ID", "org.test.before")])
        let first = try CommandLine.run(TestPaths.imagepipeBinary, arguments, environment: environment)
        #expect(first.stdout.contains("org.test.before.coder/1"))
        // Replace the file (new inode, size and mtime) with another plugin.
        let replacement = try TestPaths.temporaryDirectory()
        try FixturePlugins.build("p.so", in: replacement, defines: [FixturePlugins.stringDefine("FIXTURE_ID", "org.test.after.longer.id")])
        #expect(rename(replacement + "/p.so", folder + "/p.so") == 0)
        let second = try CommandLine.run(TestPaths.imagepipeBinary, arguments, environment: environment)
        #expect(second.stdout.contains("org.test.after.longer.id.coder/1"))
        #expect(!second.stdout.contains("org.test.before"))
    }

    @Test func refusalsAreCachedButPermissionsAreCheckedEveryTime() throws {
        let folder = try TestPaths.temporaryDirectory()
        let cache = folder + "-registry.json"
        try FixturePlugins.build("bad.so", in: folder, defines: ["BROKEN_ABI_MAJOR"])
        let first = PluginRegistry.scan(PluginSearchPath(directories: [folder]), cachePath: cache)
        let second = PluginRegistry.scan(PluginSearchPath(directories: [folder]), cachePath: cache)
        #expect(first.records.map(\.state) == second.records.map(\.state))
        chmod(folder + "/bad.so", 0o666)
        let third = PluginRegistry.scan(PluginSearchPath(directories: [folder]), cachePath: cache)
        #expect(third.records.first?.state == .refused(reason: "file is world-writable"))
    }

    /// Every descriptor field survives the cache's binary record (a field added to a descriptor but not to its
    /// record fails here), and a truncated or corrupted cache file is inspected again, never trusted or fatal.
    @Test func theCacheRecordKeepsEveryFieldAndSurvivesCorruption() throws {
        let cache = try TestPaths.temporaryDirectory()
        let path = PluginSearchPath(directories: [TestPaths.pluginsDirectory])
        let inspected = PluginRegistry.scan(path, cachePath: cache)
        #expect(inspected.coders.count >= 8 && inspected.loaders.count >= 2, "\(inspected.records.map(\.state))")
        let files = try FileManager.default.contentsOfDirectory(atPath: cache).filter { $0.hasSuffix(".registry") }
        #expect(files.count == 1)

        func same(_ registry: PluginRegistry, _ context: String) {
            #expect(registry.coders.map(\.descriptor) == inspected.coders.map(\.descriptor), "\(context)")
            #expect(registry.loaders.map(\.descriptor) == inspected.loaders.map(\.descriptor), "\(context)")
            #expect(registry.caches.map(\.descriptor) == inspected.caches.map(\.descriptor), "\(context)")
            #expect(registry.records.map(\.state) == inspected.records.map(\.state), "\(context)")
        }
        same(PluginRegistry.scan(path, cachePath: cache), "read back from the cache")

        let file = cache + "/" + files[0]
        let good = try #require(FileManager.default.contents(atPath: file))
        let damaged: [(String, Data)] = [("truncated", good.prefix(good.count / 2)), ("empty", Data()),
                                         ("one byte short", good.dropLast()), ("a byte flipped", {
                                             var bytes = good
                                             bytes[bytes.count / 3] ^= 0xFF
                                             return bytes
                                         }()), ("trailing bytes", good + Data([0]))]
        for (name, bytes) in damaged {
            #expect(FileManager.default.createFile(atPath: file, contents: bytes))
            same(PluginRegistry.scan(path, cachePath: cache), name)
        }
    }
}
