import Foundation
import PipelineHost
import Testing
import TestSupport

/// The preload guess a worker resolves from a source's name alone: which plugin it opens before its first request.
@Suite struct PreloadHintTests {
    @Test func theExtensionOfTheLastPathComponentIsTheHint() {
        #expect(PreloadHint(source: "/icons/Badge.SVG", policy: .automatic) == PreloadHint(fileExtension: "svg", everyCoderIsolated: false))
        #expect(PreloadHint(source: "https://example.com/a/report.pdf", policy: .isolated) == PreloadHint(fileExtension: "pdf", everyCoderIsolated: true))
        #expect(PreloadHint(source: "/a.b/noextension", policy: .automatic) == nil, "a dot in a folder name is not an extension")
        #expect(PreloadHint(source: "https://example.com/a.svg?v=2", policy: .automatic) == nil, "a query is no extension")
        #expect(PreloadHint(source: "trailing.", policy: .automatic) == nil)
        #expect(PreloadHint(source: "/icons/badge.svg", policy: .inProcess) == nil, "nothing runs isolated, nothing to preload")
    }

    /// Only a decoding coder that would run isolated is worth opening: in auto mode that is SVG (which recommends
    /// isolation), never PNG, which the host decodes itself; with every coder isolated, PNG too.
    @Test func theHintNamesThePluginOfTheOneCoderThatWouldRunIsolated() throws {
        let folder = try PluginSandbox.directory(with: ["libSVGCoder.so", "libPNGCoder.so"])
        let coders = PluginRegistry.scan(PluginSearchPath(directories: [folder]), cachePath: nil).coders
        #expect(PreloadHint(fileExtension: "svg", everyCoderIsolated: false).pluginPath(among: coders) == folder + "/libSVGCoder.so")
        #expect(PreloadHint(fileExtension: "svgz", everyCoderIsolated: false).pluginPath(among: coders) == folder + "/libSVGCoder.so")
        #expect(PreloadHint(fileExtension: "png", everyCoderIsolated: false).pluginPath(among: coders) == nil)
        #expect(PreloadHint(fileExtension: "png", everyCoderIsolated: true).pluginPath(among: coders) == folder + "/libPNGCoder.so")
        #expect(PreloadHint(fileExtension: "tiff", everyCoderIsolated: true).pluginPath(among: coders) == nil)
    }

    /// The registry a worker reads for its guess holds only what the cache knows: nothing is inspected for it.
    @Test func aCachedOnlyScanLeavesOutFilesTheCacheDoesNotKnow() throws {
        let folder = try PluginSandbox.directory(with: ["libSVGCoder.so", "libPNGCoder.so"])
        let cache = try TestPaths.temporaryDirectory("preload-cache")
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let searchPath = PluginSearchPath(directories: [folder])
        #expect(PluginRegistry.scan(searchPath, cachePath: cache, cachedOnly: true).coders.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache).isEmpty, "a cached-only scan writes nothing")
        #expect(PluginRegistry.scan(searchPath, cachePath: cache).coders.count == 2)
        let cached = PluginRegistry.scan(searchPath, cachePath: cache, cachedOnly: true)
        #expect(Set(cached.coders.map(\.descriptor.format)) == ["svg", "png"])
    }
}
