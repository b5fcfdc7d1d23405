import Foundation
import PipelineHost
import Testing
import TestSupport

/// The registry refuses each kind of broken plugin with a clear reason while the good ones still load.
@Suite struct PluginRegistryTests {
    private func scan(_ directory: String) -> PluginRegistry {
        PluginRegistry.scan(PluginSearchPath(directories: [directory]))
    }

    private func reason(_ registry: PluginRegistry, _ file: String) -> String? {
        guard let record = registry.records.first(where: { $0.path.hasSuffix("/" + file) }) else { return nil }
        if case .refused(let reason) = record.state { return reason }
        return nil
    }

    @Test func brokenPluginsAreRefusedWithReasonsAndGoodOnesStillLoad() throws {
        // Given a folder with one good plugin and one plugin per broken rule
        let folder = try TestPaths.temporaryDirectory()
        try FixturePlugins.build("a-good.so", in: folder)
        try Data("this is not a shared library".utf8).write(to: URL(fileURLWithPath: folder + "/not-elf.so"))
        chmod(folder + "/not-elf.so", 0o644)
        let variants: [(String, [String])] = [
            ("no-entry.so", ["BROKEN_NO_ENTRY", FixturePlugins.stringDefine("FIXTURE_ID", "org.test.noentry")]),
            ("null-entry.so", ["BROKEN_NULL_ENTRY", FixturePlugins.stringDefine("FIXTURE_ID", "org.test.nullentry")]),
            ("wrong-major.so", ["BROKEN_ABI_MAJOR", FixturePlugins.stringDefine("FIXTURE_ID", "org.test.major")]),
            ("small-size.so", ["BROKEN_SMALL_SIZE", FixturePlugins.stringDefine("FIXTURE_ID", "org.test.small")]),
            ("huge-size.so", ["BROKEN_HUGE_SIZE", FixturePlugins.stringDefine("FIXTURE_ID", "org.test.huge")]),
            ("init-fails.so", ["BROKEN_INIT_FAILS", FixturePlugins.stringDefine("FIXTURE_ID", "org.test.initfails")]),
            ("world-writable.so", [FixturePlugins.stringDefine("FIXTURE_ID", "org.test.writable")]),
            ("z-duplicate.so", []),  // same plugin ID as a-good.so
        ]
        for (name, defines) in variants { try FixturePlugins.build(name, in: folder, defines: defines) }
        chmod(folder + "/world-writable.so", 0o666)

        // When the host scans it
        let registry = scan(folder)

        // Then every broken file is refused with its own reason, and the good plugin loads
        #expect(reason(registry, "not-elf.so") == "not an ELF file")
        #expect(reason(registry, "no-entry.so")?.contains("no entry symbol imagepipe_plugin_entry") == true)
        #expect(reason(registry, "null-entry.so")?.contains("returned NULL") == true)
        #expect(reason(registry, "wrong-major.so")?.contains("built for ABI 2.0") == true)
        #expect(reason(registry, "small-size.so")?.contains("struct_size is 8") == true)
        #expect(reason(registry, "huge-size.so")?.contains("larger than the maximum") == true)
        #expect(reason(registry, "init-fails.so")?.contains("the fixture refuses to start") == true)
        #expect(reason(registry, "world-writable.so") == "file is world-writable")
        let duplicate = try #require(registry.records.first { $0.path.hasSuffix("/z-duplicate.so") })
        #expect(duplicate.state == .shadowed(by: folder + "/a-good.so"))
        let good = try #require(registry.records.first { $0.path.hasSuffix("/a-good.so") })
        #expect(good.state == .loaded)
        #expect(registry.coders.map(\.descriptor.id) == ["org.imagepipe.test.fixture.coder/1"])
        #expect(registry.records.count == 10)
    }

    @Test func groupWritableFolderIsRefused() throws {
        let folder = try TestPaths.temporaryDirectory()
        try FixturePlugins.build("good.so", in: folder)
        chmod(folder, 0o775)
        let registry = scan(folder)
        #expect(registry.coders.isEmpty)
        #expect(reason(registry, "good.so") == "folder is group-writable")
    }

    @Test func searchPathOrderDecidesWhichDuplicateWins() throws {
        let first = try TestPaths.temporaryDirectory(), second = try TestPaths.temporaryDirectory()
        try FixturePlugins.build("z.so", in: first, defines: ["FIXTURE_COLOR=0x00FF00FFu"])
        try FixturePlugins.build("a.so", in: second, defines: ["FIXTURE_COLOR=0x0000FFFFu"])
        let registry = PluginRegistry.scan(PluginSearchPath(directories: [first, second]))
        #expect(registry.records.map(\.state.label) == ["loaded", "shadowed"])
        let host = PluginHost(registry: registry)
        let image = try host.coders.decode(data: Array("FIXT".utf8))
        #expect(image.pixel(x: 0, y: 0) == RGBA16Pixel(r: 0, g: 255, b: 0, a: 255))
    }

    @Test func searchPathIgnoresMissingFoldersAndNeverTheCurrentDirectory() throws {
        let path = PluginSearchPath.standard(flags: ["/nonexistent/imagepipe"], environment: "/also/missing:relative/ignored",
                                             executablePath: "/nonexistent/bin/imagepipe")
        #expect(path.entries.map(\.directory) == ["/nonexistent/imagepipe", "/also/missing"])
        #expect(PluginRegistry.scan(path).records.isEmpty)
    }
}
