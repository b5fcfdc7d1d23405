#if canImport(Glibc)
import Glibc
#endif
import PipelineHost
import PluginAPI
import VersionedStructs

/// The plugin file opened the way the host opens it, but by the test harness: every step separately observable
/// (dlopen, entry, init with a chosen minor, factories), with `TestHost` as its host services.
///
/// One per check child; never closed (RTLD_NODELETE, like the host).
struct PluginUnderTest {
    let path: String
    let entry: ip_plugin_entry
    let entryPointer: UnsafePointer<ip_plugin_entry>
    let entryFunction: @convention(c) () -> UnsafePointer<ip_plugin_entry>?
    /// Seconds spent in dlopen, and in the entry function.
    let openSeconds: Double

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// dlopen (RTLD_NOW, in the host's mode: PluginLinking), dlsym, call the entry, copy its table by struct_size.
    static func open(_ path: String) throws -> PluginUnderTest {
        let started = ChildProcess.now()
        _ = dlerror()
        let handle = Watchdog.guarding("dlopen \(path)", limit: max(Watchdog.callLimit, 30)) { dlopen(path, PluginLinking.mode(bindNow: true)) }
        guard let handle else {
            throw Failure("dlopen(RTLD_NOW) failed: \(dlerror().map { String(cString: $0) } ?? "unknown error")")
        }
        guard let symbol = dlsym(handle, IP_ENTRY_SYMBOL) else { throw Failure("no symbol \(IP_ENTRY_SYMBOL)") }
        typealias EntryFunction = @convention(c) () -> UnsafePointer<ip_plugin_entry>?
        let function = unsafeBitCast(symbol, to: EntryFunction.self)
        let pointer = Watchdog.guarding("\(IP_ENTRY_SYMBOL)()", limit: Watchdog.callLimit) { function() }
        guard let pointer else { throw Failure("\(IP_ENTRY_SYMBOL)() returned NULL") }
        let entry = try ABICopy.read(pointer, as: ip_plugin_entry.self, named: "ip_plugin_entry")
        guard entry.abi_major == UInt32(IP_ABI_MAJOR) else {
            throw Failure("abi_major is \(entry.abi_major); this host speaks \(IP_ABI_MAJOR).\(IP_ABI_MINOR)")
        }
        return PluginUnderTest(path: path, entry: entry, entryPointer: pointer, entryFunction: function,
                               openSeconds: ChildProcess.now() - started)
    }

    /// Calls init with `hostMinor`; returns the status, the minor the plugin answered and its message.
    func initialize(hostMinor: UInt32 = UInt32(IP_ABI_MINOR)) -> (status: Int32, pluginMinor: UInt32, message: String) {
        guard let initialize = entry.`init` else { return (IP_STATUS_OK, min(hostMinor, entry.abi_minor), "") }
        var answered: UInt32 = 0xFFFF_FFFF
        var buffer = [CChar](repeating: 0, count: 1024)
        let status = buffer.withUnsafeMutableBufferPointer { message in
            Watchdog.guarding("init(host minor \(hostMinor))", limit: Watchdog.callLimit) {
                PluginSearchPath.absolutePath(path).withCString { path in
                    initialize(TestHost.table, path, hostMinor, &answered, ip_message(buffer: message.baseAddress, capacity: message.count))
                }
            }
        }
        return (status, answered, ABICopy.text(buffer))
    }

    /// Loads and inits with the host's minor; throws when init refuses.
    static func openAndInitialize(_ path: String) throws -> PluginUnderTest {
        let plugin = try open(path)
        let result = plugin.initialize()
        guard result.status == IP_STATUS_OK else {
            throw Failure("init failed with \(StatusName.of(result.status)): \(result.message)")
        }
        return plugin
    }

    func factory(_ id: String) -> UnsafeRawPointer? {
        guard let get = entry.get_factory else { return nil }
        return Watchdog.guarding("get_factory(\"\(id)\")", limit: Watchdog.callLimit) { id.withCString { get($0) } }
    }

    /// The components whose slots work only under a 1.1 host (a "2" slot, loader open or cache open2 filled
    /// without the 1.0 slot that does the same), named for a report.
    func componentsNeedingOnePointOne() throws -> [String] {
        var names: [String] = []
        for (index, coder) in try coders().enumerated() {
            let t = coder.table
            let pairs: [(Bool, Bool)] = [(t.sniff2 != nil, t.sniff != nil), (t.probe2 != nil, t.probe != nil),
                                         (t.decode2 != nil, t.decode != nil), (t.frames_open2 != nil, t.frames_open != nil),
                                         (t.incremental_open2 != nil, t.incremental_open != nil), (t.encode2 != nil, t.encode != nil)]
            if pairs.contains(where: { $0.0 && !$0.1 }) { names.append("coder #\(index)") }
        }
        for (index, loader) in try loaders().enumerated() where loader.table.open != nil && loader.table.start == nil {
            names.append("loader #\(index)")
        }
        for (index, cache) in try caches().enumerated() where cache.table.open2 != nil && cache.table.open == nil {
            names.append("cache #\(index)")
        }
        return names
    }

    /// The coder tables (copied by struct_size), in factory order.
    func coders() throws -> [CoderEntryPoints] {
        guard let raw = factory(IP_CODER_FACTORY_ID) else { return [] }
        let factory = try ABICopy.read(raw, as: ip_coder_factory.self, named: "ip_coder_factory")
        return try ABICopy.list(factory.coders, count: factory.coder_count, named: "coders").map {
            CoderEntryPoints(pointer: $0, table: try ABICopy.read($0, as: ip_coder.self, named: "ip_coder"))
        }
    }

    func loaders() throws -> [LoaderEntryPoints] {
        guard let raw = factory(IP_LOADER_FACTORY_ID) else { return [] }
        let factory = try ABICopy.read(raw, as: ip_loader_factory.self, named: "ip_loader_factory")
        return try ABICopy.list(factory.loaders, count: factory.loader_count, named: "loaders").map {
            LoaderEntryPoints(pointer: $0, table: try ABICopy.read($0, as: ip_loader.self, named: "ip_loader"))
        }
    }

    func caches() throws -> [CacheEntryPoints] {
        guard let raw = factory(IP_CACHE_FACTORY_ID) else { return [] }
        let factory = try ABICopy.read(raw, as: ip_cache_factory.self, named: "ip_cache_factory")
        return try ABICopy.list(factory.caches, count: factory.cache_count, named: "caches").map {
            CacheEntryPoints(pointer: $0, table: try ABICopy.read($0, as: ip_cache.self, named: "ip_cache"))
        }
    }
}

/// Copying versioned C tables the way the host does (`VersionedStruct`, the one rule), failures as the tester's.
enum ABICopy {
    static func read<T>(_ pointer: UnsafeRawPointer?, as type: T.Type, named name: String) throws -> T {
        do {
            return try VersionedStruct.read(pointer, as: type, named: name)
        } catch {
            throw PluginUnderTest.Failure(error.description)
        }
    }

    static func list<T>(_ list: UnsafePointer<UnsafePointer<T>?>?, count: UInt32, named name: String) throws -> [UnsafePointer<T>] {
        guard count <= 256 else { throw PluginUnderTest.Failure("\(name): count \(count) is absurd") }
        guard count == 0 || list != nil else { throw PluginUnderTest.Failure("\(name) list is NULL") }
        return try (0..<Int(count)).map { index in
            guard let item = list![index] else { throw PluginUnderTest.Failure("\(name)[\(index)] is NULL") }
            return item
        }
    }

    /// The NUL-terminated text of a message buffer, as UTF-8 (invalid bytes replaced).
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Status codes by name, for messages.
enum StatusName {
    static let names = ["OK", "NEED_MORE", "UNSUPPORTED", "INVALID_DATA", "TRUNCATED", "LIMIT_EXCEEDED", "CANCELLED",
                        "IO", "NO_MEMORY", "INTERNAL", "NOT_FOUND", "END", "REFUSED"]

    static func of(_ status: Int32) -> String {
        names.indices.contains(Int(status)) ? names[Int(status)] : "invalid status \(status)"
    }

    static func isKnown(_ status: Int32) -> Bool { names.indices.contains(Int(status)) }
}
