import Foundation
import PipelineHost
import PluginAPI
import Testing
import TestSupport

/// ABI 1.1 through a C plugin that fills only the slots 1.1 appended (Tests/Fixtures/fixture_components.c): the host
/// calls a "2" slot with the component's own table, opens configured loader instances, hands loaders header and
/// redirect callbacks, and opens caches through open2. (The 1.0 side, a plugin built against the frozen headers,
/// is CompatibilityKitTests'.)
@Suite struct ABIOnePointOneTests {
    /// A host over the components fixture alone.
    static func host(loaderConfigurations: [String: String] = [:]) throws -> (PluginHost, String) {
        let folder = try PluginSandbox.directory(with: [])
        try FixturePlugins.build("components.so", in: folder, source: "fixture_components.c")
        let registry = PluginRegistry.scan(PluginSearchPath(directories: [folder]), cachePath: nil)
        return (PluginHost(registry: registry, loaderConfigurations: loaderConfigurations), folder)
    }

    @Test("six coders sharing one set of C functions are each called through their own table")
    func everyCoderIsToldWhichItIs() throws {
        let (host, folder) = try Self.host()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let record = try #require(host.registry.records.first)
        #expect(record.state == .loaded, "\(record.state)")
        #expect(record.negotiatedMinor == 1)
        #expect(host.coders.coders.count == 6)
        for index in 0..<6 {
            let image = try host.coders.decode(data: Array("CMP\(index) and some bytes".utf8))
            #expect(image.width == 1 && image.height == 1)
            #expect(image.pixel(x: 0, y: 0).r == UInt16(10 * (index + 1)), "coder \(index) answered as another coder")
            let info = try host.coders.probe(data: Array("CMP\(index)".utf8))
            #expect(info.format == "cmp\(index)")
        }
    }

    @Test("a loader instance is opened with the host's configuration for its scheme; an unknown key fails naming it")
    func loaderConfiguration() async throws {
        let (configured, folder) = try Self.host(loaderConfigurations: ["fixture": "body=configured bytes"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try await configured.loaders.load(url: "fixture://plain") == Array("configured bytes".utf8))
        // The same plugin in another host, left at its defaults: its own instance, its own body.
        let registry = PluginRegistry.scan(PluginSearchPath(directories: [folder]), cachePath: nil)
        let defaults = PluginHost(registry: registry)
        #expect(try await defaults.loaders.load(url: "fixture://plain") == Array("default body".utf8))

        let misspelt = PluginHost(registry: registry, loaderConfigurations: ["fixture": "bdy=x"])
        #expect(throws: PipelineError.self) { try misspelt.loaders.openConfigured() }
        do {
            _ = try await misspelt.loaders.load(url: "fixture://plain")
            Issue.record("a load with a refused configuration succeeded")
        } catch let error as PipelineError {
            #expect(error.code == 5000)
            #expect("\(error)".contains("'bdy'") && "\(error)".contains("org.imagepipe.test.components.loader/1"), "\(error)")
        }
    }

    @Test("header lines of the final response reach the host before the response, with the response")
    func headersReachTheHost() async throws {
        let (host, folder) = try Self.host()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let seen = Mutex<LoadResponse?>(nil)
        let hooks = LoadHooks(validateResponse: { response in seen.withLock { $0 = response } })
        _ = try await host.loaders.load(url: "fixture://plain", options: LoadOptions(), hooks: hooks)
        let response = try #require(seen.withLock { $0 })
        #expect(response.header("etag") == "\"fixture-v1\"")
        #expect(response.header("X-BODY-LENGTH") == "\("default body".utf8.count)")
        #expect(response.headers.count == 2)
    }

    @Test("every redirect hop is put to the host before it is followed; a refused hop fails as refused")
    func redirectsAreVetted() async throws {
        let (host, folder) = try Self.host()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let asked = Mutex<[String]>([])
        let allow = LoadHooks(approveRedirect: { status, target in
            asked.withLock { $0.append("\(status) \(target)") }
            return true
        })
        #expect(try await host.loaders.load(url: "fixture://hop", options: LoadOptions(), hooks: allow) == Array("default body".utf8))
        #expect(asked.withLock { $0 } == ["302 fixture://target"])

        let refuse = LoadHooks(approveRedirect: { _, _ in false })
        do {
            _ = try await host.loaders.load(url: "fixture://hop", options: LoadOptions(), hooks: refuse)
            Issue.record("a refused redirect was followed")
        } catch let PipelineError.loadingFailed(_, _, status, message) {
            #expect(status == .refused, "\(status): \(message)")
        }
    }

    @Test("a cache is opened through open2 with its own table and its configuration")
    func cacheOpenedThroughOpen2() async throws {
        let (host, folder) = try Self.host()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = try #require(host.caches.pluginCaches.first)
        let store = try cache.open(configuration: "namespace=tests")
        #expect(try await store.data(for: "configuration") == Array("namespace=tests".utf8))
        #expect(try await store.data(for: "other") == nil)
    }
}

import Synchronization
