import Foundation
import PipelineHost
import PluginAPI
import Testing
import TestSupport
import VersionedStructs

/// The compatibility rule, exercised by real plugins and the frozen 1.0 headers:
/// - a plugin built against a later minor of ABI 1 (its entry and coder tables larger than this host's, a newer
///   `abi_minor`) loads, negotiates this host's minor, and works; the slots it appended are never read as this
///   host's (they would trap if called);
/// - a plugin built against the frozen copy of the 1.0 headers (Tests/Fixtures/abi-1.0) loads and works under this
///   host, whatever minor the live headers have reached;
/// - every struct field and every constant of the frozen 1.0 headers has the same offset and value in the live
///   headers, and no struct is smaller: a minor release only appends.
@Suite struct CompatibilityKitTests {
    static let frozenHeaders = TestPaths.repositoryRoot + "/Tests/Fixtures/abi-1.0"
    static let liveHeaders = TestPaths.repositoryRoot + "/Sources/PluginAPI/include"

    @Test("every reader's floor for a versioned struct is its size in the frozen 1.0 headers, and every versioned struct has one")
    func floorsAreTheOnePointZeroSizes() throws {
        let frozen = try ABILayout.read(headers: Self.frozenHeaders)
        let versioned = frozen.sizes.keys.filter { frozen.fields["\($0).struct_size"] == 0 || frozen.fields["\($0).head"] == 0 }
        #expect(versioned.count >= 25, "versioned structs found: \(versioned.sorted())")
        for name in versioned.sorted() {
            #expect(VersionedStruct.floorsByName[name] == frozen.sizes[name],
                    "\(name): floor \(VersionedStruct.floorsByName[name].map(String.init) ?? "missing"), 1.0 size \(frozen.sizes[name] ?? 0)")
        }
    }

    @Test("a struct_size below the 1.0 floor or above the maximum is refused, a larger one is read up to what is known")
    func theOneReadRule() throws {
        var limits = ip_limits(struct_size: UInt32(MemoryLayout<ip_limits>.size), max_pixels: 7, max_dimension: 8, max_frames: 9,
                               max_input_bytes: 10)
        #expect(try VersionedStruct.read(&limits, as: ip_limits.self, named: "limits").max_input_bytes == 10)
        limits.struct_size = 16
        #expect(throws: VersionedStruct.Failure.self) { try VersionedStruct.read(&limits, as: ip_limits.self, named: "limits") }
        limits.struct_size = UInt32(IP_MAX_STRUCT_SIZE) + 1
        #expect(throws: VersionedStruct.Failure.self) { try VersionedStruct.read(&limits, as: ip_limits.self, named: "limits") }
        // A newer writer's larger struct: the known fields are read, the rest ignored.
        let bigger = UnsafeMutableRawPointer.allocate(byteCount: 128, alignment: 16)
        defer { bigger.deallocate() }
        bigger.initializeMemory(as: UInt8.self, repeating: 0xAB, count: 128)
        limits.struct_size = 128
        bigger.storeBytes(of: limits, as: ip_limits.self)
        let read = try VersionedStruct.read(bigger, as: ip_limits.self, named: "limits")
        #expect(read.max_pixels == 7 && read.max_input_bytes == 10)
    }

    @Test("a plugin built against the frozen 1.0 headers loads and decodes under this host")
    func frozenOnePointZeroPluginWorks() throws {
        let folder = try PluginSandbox.directory(with: [])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FixturePlugins.build("one-zero.so", in: folder, defines: [FixturePlugins.stringDefine("FIXTURE_ID", "org.test.onezero")],
                                 headers: Self.frozenHeaders)
        let registry = PluginRegistry.scan(PluginSearchPath(directories: [folder]), cachePath: nil)
        let record = try #require(registry.records.first { $0.path.hasSuffix("/one-zero.so") })
        #expect(record.state == .loaded, "\(record.state)")
        #expect(record.abiVersion == "1.0")
        let image = try PluginHost(registry: registry).coders.decode(data: Array("FIXT and some bytes".utf8))
        #expect(image.width == 2 && image.height == 1)
    }

    @Test("the live headers keep every offset, size floor and constant of the frozen 1.0 headers")
    func liveHeadersOnlyAppend() throws {
        let frozen = try ABILayout.read(headers: Self.frozenHeaders)
        let live = try ABILayout.read(headers: Self.liveHeaders)
        #expect(frozen.fields.count > 100, "the frozen headers were parsed (\(frozen.fields.count) fields)")
        for (field, offset) in frozen.fields.sorted(by: { $0.key < $1.key }) {
            #expect(live.fields[field] == offset, "\(field): offset \(offset) in 1.0, \(live.fields[field].map(String.init) ?? "gone") now")
        }
        for (name, size) in frozen.sizes.sorted(by: { $0.key < $1.key }) {
            #expect((live.sizes[name] ?? 0) >= size, "\(name) is \(size) bytes in 1.0 and \(live.sizes[name] ?? 0) now")
        }
        for (name, value) in frozen.constants.sorted(by: { $0.key < $1.key }) where name != "IP_ABI_MINOR" {
            #expect(live.constants[name] == value, "\(name) is \(value) in 1.0 and \(live.constants[name] ?? "gone") now")
        }
    }

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
