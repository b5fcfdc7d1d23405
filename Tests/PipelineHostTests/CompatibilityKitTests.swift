import Foundation
import PipelineHost
import PluginAPI
import Testing
import TestSupport

/// The compatibility rule, exercised by a real plugin: one built against a later minor of ABI 1 (its entry and
/// coder tables larger than this host's, a newer `abi_minor`) loads, negotiates this host's minor, and works; the
/// slots it appended are never read as this host's (they would trap if called).
///
/// The other direction — a 1.0 plugin with the smaller tables of 1.0 under a later host — needs the 1.0 layout
/// frozen as the floor each reader accepts (issue 16); until then every reader's floor is the current layout.
@Suite struct CompatibilityKitTests {
    @Test("a plugin built for a later minor, with larger tables, loads, speaks this host's minor and decodes")
    func newerMinorPluginWorks() throws {
        let folder = try PluginSandbox.directory(with: [])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FixturePlugins.build("future.so", in: folder, defines: ["FIXTURE_FUTURE_MINOR=3",
                                                                    FixturePlugins.stringDefine("FIXTURE_ID", "org.test.future")])
        let registry = PluginRegistry.scan(PluginSearchPath(directories: [folder]), cachePath: nil)
        let record = try #require(registry.records.first { $0.path.hasSuffix("/future.so") })
        #expect(record.state == .loaded, "\(record.state)")
        #expect(record.abiVersion == "1.\(IP_ABI_MINOR + 3)")
        #expect(record.negotiatedMinor == Int(IP_ABI_MINOR), "the plugin speaks the smaller of the two minors")
        let host = PluginHost(registry: registry)
        let image = try host.coders.decode(data: Array("FIXT and some bytes".utf8))
        #expect(image.width == 2 && image.height == 1)
        #expect(image.pixel(x: 0, y: 0) == RGBA16Pixel(r: 255, g: 0, b: 0, a: 255))
    }
}
