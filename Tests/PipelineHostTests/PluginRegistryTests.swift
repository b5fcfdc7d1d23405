import Foundation
import PipelineHost
import PluginAPI
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
        #expect(reason(registry, "wrong-major.so")?.contains("built for ABI 2.\(IP_ABI_MINOR)") == true)
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

    @Test("a group-writable folder anywhere above the plugin refuses it: someone who can write it can rename the folders below")
    func groupWritableAncestorIsRefused() throws {
        let outer = try TestPaths.temporaryDirectory()
        let folder = outer + "/plugins"
        mkdir(folder, 0o755)
        try FixturePlugins.build("good.so", in: folder)
        chmod(outer, 0o775)
        let registry = scan(folder)
        #expect(registry.coders.isEmpty)
        #expect(reason(registry, "good.so") == "folder \(outer) is group-writable")
        chmod(outer, 0o755)
        #expect(scan(folder).records.first?.state == .loaded)
    }

    @Test("a link is judged by its target: a plugin linked from a clean folder into a world-writable one is refused")
    func symlinkTargetFolderIsChecked() throws {
        let clean = try TestPaths.temporaryDirectory(), open = try TestPaths.temporaryDirectory()
        try FixturePlugins.build("good.so", in: open)
        chmod(open, 0o777)
        symlink(open + "/good.so", clean + "/linked.so")
        let registry = scan(clean)
        #expect(registry.coders.isEmpty)
        #expect(reason(registry, "linked.so") == "folder is world-writable")
    }

    @Test("a sticky world-writable folder (a /tmp) may be an ancestor but not the plugin's own folder")
    func stickyFolderOnlyAsAncestor() throws {
        let sticky = try TestPaths.temporaryDirectory()
        chmod(sticky, 0o1777)
        try FixturePlugins.build("good.so", in: sticky)
        #expect(reason(scan(sticky), "good.so") == "folder is world-writable")
        let inside = sticky + "/mine"
        mkdir(inside, 0o755)
        try FixturePlugins.build("good.so", in: inside)
        #expect(scan(inside).records.first?.state == .loaded)
    }

    @Test("the plugin is mapped from the descriptor that was checked (/proc/self/fd/N), not reopened by name")
    func loadedThroughTheCheckedDescriptor() throws {
        let folder = try TestPaths.temporaryDirectory()
        try FixturePlugins.build("fd-loaded.so", in: folder, defines: [FixturePlugins.stringDefine("FIXTURE_ID", "org.test.fdloaded")])
        let registry = scan(folder)
        #expect(registry.records.first?.state == .loaded)
        // The dynamic linker names an object by the path it was opened with.
        let names = LoadedObjects.names()
        #expect(names.contains { $0.hasPrefix("/proc/self/fd/") }, "\(names.filter { $0.contains("fd") })")
        #expect(!names.contains(folder + "/fd-loaded.so"))
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
                                             executablePath: "/nonexistent/bin/imagepipe", userDataHome: "/nonexistent/share",
                                             defaults: false)
        #expect(path.entries.map(\.directory) == ["/nonexistent/imagepipe", "/also/missing"])
        #expect(PluginRegistry.scan(path).records.isEmpty)
    }

    /// GStreamer's and gdk-pixbuf's order: what the user asked for, then the user's own folder, then the system's
    /// (the executable's prefix first), then the build tree.
    @Test func theStandardSearchPathGoesFromTheUserToTheSystemToTheBuildTree() throws {
        let path = PluginSearchPath.standard(flags: ["/flag"], environment: "/environment", executablePath: "/opt/pipe/bin/imagepipe",
                                             userDataHome: "/home/someone/.local/share")
        let triplet = PluginSearchPath.multiarchTriplet
        #expect(path.entries.map(\.directory) == [
            "/flag", "/environment", "/home/someone/.local/share/imagepipe/1/plugins.d", "/opt/pipe/lib/imagepipe/1/plugins.d",
            "/usr/local/lib/imagepipe/1/plugins.d", "/usr/lib/\(triplet)/imagepipe/1/plugins.d", "/usr/lib/imagepipe/1/plugins.d",
        ])
        #expect(path.entries.map(\.origin) == [.flag, .environment, .user, .system, .system, .system, .system])
        // An executable in /usr/local/bin names /usr/local once; one outside a bin folder adds no prefix of its own.
        let local = PluginSearchPath.standard(flags: [], environment: nil, executablePath: "/usr/local/bin/imagepipe", userDataHome: nil)
        #expect(local.entries.map(\.directory) == Array(path.entries.map(\.directory).dropFirst(4)))
        #expect(PluginSearchPath.default.entries.contains { $0.origin == .system })
    }

    @Test func aRegistryWithNothingLoadedNamesEveryFolderItSearched() throws {
        let empty = try TestPaths.temporaryDirectory()
        let registry = PluginRegistry.scan(PluginSearchPath(directories: [empty, "/nonexistent/plugins.d"]), cachePath: nil)
        let error = try #require(registry.nothingLoaded)
        #expect(error.code == 1200)
        #expect(error.description.contains("\(empty) (no plugin files)") && error.description.contains("/nonexistent/plugins.d (missing)"))
        let host = PluginHost(registry: registry)
        #expect(throws: error) { try host.coders.decode(data: [0x89, 0x50, 0x4E, 0x47]) }
        #expect(throws: error) { try host.coders.encode(try Image(width: 1, height: 1), format: "png") }
        // With a plugin loaded, a missing format is the ordinary error again.
        let loaded = try PluginSandbox.host(loading: ["libPNGCoder.so"])
        #expect(loaded.registry.nothingLoaded == nil)
        #expect(throws: PipelineError.noEncoder(format: "avif")) { try loaded.coders.encode(try Image(width: 1, height: 1), format: "avif") }
    }
}

/// A plugin built for another machine is refused by name, not with dlopen's "No such file or directory".
@Suite struct PluginArchitectureTests {
    /// The first 64 bytes of an ELF shared object for `machine` (64-bit, little-endian): enough for the check.
    static func elfHeader(machine: UInt16, bits64: Bool = true) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 64)
        header[0...3] = [0x7F, 0x45, 0x4C, 0x46]
        header[4] = bits64 ? 2 : 1
        header[5] = 1
        header[6] = 1
        header[16] = 3  // ET_DYN
        header[18] = UInt8(machine & 0xFF)
        header[19] = UInt8(machine >> 8)
        return header
    }

    @Test(arguments: [(UInt16(183), "aarch64"), (UInt16(62), "x86_64"), (UInt16(243), "riscv64")])
    func aForeignPluginIsRefusedAsWrongArchitecture(_ machine: UInt16, _ name: String) throws {
        let folder = try TestPaths.temporaryDirectory("plugin-arch")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try TestFiles.write(Self.elfHeader(machine: machine), to: folder + "/libForeign.so")
        chmod(path, 0o755)
        let registry = PluginRegistry.scan(PluginSearchPath(directories: [folder]))
        let record = try #require(registry.records.first)
        guard case .refused(let reason) = record.state else { Issue.record("loaded: \(record.state)"); return }
        #if arch(x86_64)
        let native = machine == 62
        #else
        let native = machine == 183
        #endif
        if native {
            #expect(!reason.contains("wrong architecture"), "\(reason)")
        } else {
            #expect(reason.hasPrefix("wrong architecture (\(name))"), "\(reason)")
        }
    }

    @Test func aThirtyTwoBitPluginOfThisMachineIsRefusedToo() throws {
        let folder = try TestPaths.temporaryDirectory("plugin-arch")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #if arch(x86_64)
        let machine: UInt16 = 62
        #else
        let machine: UInt16 = 183
        #endif
        let path = try TestFiles.write(Self.elfHeader(machine: machine, bits64: false), to: folder + "/lib32.so")
        chmod(path, 0o755)
        let registry = PluginRegistry.scan(PluginSearchPath(directories: [folder]))
        guard case .refused(let reason) = try #require(registry.records.first).state else { Issue.record("loaded"); return }
        #expect(reason.contains("wrong architecture") && reason.contains("32-bit"), "\(reason)")
    }
}

/// The names of the objects the dynamic linker has loaded into this process, from dl_iterate_phdr (found with
/// dlsym: the Glibc module does not import <link.h>; `dlpi_name` follows the 8-byte `dlpi_addr`).
enum LoadedObjects {
    static func names() -> [String] {
        typealias Callback = @convention(c) (UnsafeRawPointer?, Int, UnsafeMutableRawPointer?) -> Int32
        typealias Iterate = @convention(c) (Callback, UnsafeMutableRawPointer?) -> Int32
        guard let symbol = dlsym(nil, "dl_iterate_phdr") else { return [] }
        final class Collected { var names: [String] = [] }
        let collected = Collected()
        withExtendedLifetime(collected) {
            _ = unsafeBitCast(symbol, to: Iterate.self)({ info, _, context in
                guard let info, let context, let name = info.load(fromByteOffset: 8, as: UnsafePointer<CChar>?.self) else { return 0 }
                Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue().names.append(String(cString: name))
                return 0
            }, Unmanaged.passUnretained(collected).toOpaque())
        }
        return collected.names
    }
}
