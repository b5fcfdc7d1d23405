#if canImport(Glibc)
import Glibc
#endif
import PluginAPI

/// Opens one plugin file and turns its entry table into host objects, or a reason it was refused.
///
/// Opened with RTLD_NOW (unresolved symbols fail here, not mid-request), RTLD_LOCAL (plugins cannot see each
/// other's symbols) and RTLD_NODELETE; never dlclose'd, because a Swift plugin unloaded by dlclose crashes the
/// process at the next type lookup (PLATFORM-NOTES).
struct PluginLibrary {
    let entry: PluginEntryInfo
    let rawEntry: ip_plugin_entry

    enum OpenResult {
        case opened(PluginLibrary)
        case refused(String, PluginEntryInfo?)
    }

    static func open(path: String) -> OpenResult {
        if let reason = PluginFileCheck.refusal(path: path) { return .refused(reason, nil) }
        _ = dlerror()
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown dlopen error"
            return .refused("dlopen failed: \(reason)", nil)
        }
        guard let symbol = dlsym(handle, IP_ENTRY_SYMBOL) else {
            return .refused("no entry symbol \(IP_ENTRY_SYMBOL)", nil)
        }
        typealias EntryFunction = @convention(c) () -> UnsafePointer<ip_plugin_entry>?
        let function = unsafeBitCast(symbol, to: EntryFunction.self)
        guard let pointer = function() else { return .refused("\(IP_ENTRY_SYMBOL)() returned NULL", nil) }
        let rawEntry: ip_plugin_entry
        do {
            rawEntry = try ABIReading.read(pointer, as: ip_plugin_entry.self, named: "entry")
        } catch {
            return .refused("\(error)", nil)
        }
        guard rawEntry.abi_major == UInt32(IP_ABI_MAJOR) else {
            return .refused("built for ABI \(rawEntry.abi_major).\(rawEntry.abi_minor); this host speaks \(IP_ABI_MAJOR).\(IP_ABI_MINOR)", nil)
        }
        do {
            let info = PluginEntryInfo(
                id: try ABIReading.identifier(rawEntry.id, named: "plugin id"),
                name: try ABIReading.string(rawEntry.name, named: "plugin name"),
                version: try ABIReading.string(rawEntry.version, named: "plugin version"),
                abiMajor: Int(rawEntry.abi_major), abiMinor: Int(rawEntry.abi_minor))
            guard rawEntry.get_factory != nil else { return .refused("entry has no get_factory", info) }
            return .opened(PluginLibrary(entry: info, rawEntry: rawEntry))
        } catch {
            return .refused("\(error)", nil)
        }
    }

    /// Calls the plugin's init with the host services; returns the negotiated minor.
    func initialize() throws -> Int {
        var pluginMinor = UInt32(IP_ABI_MINOR)
        guard let initialize = rawEntry.`init` else { return Int(min(UInt32(IP_ABI_MINOR), rawEntry.abi_minor)) }
        var message = MessageBuffer()
        let status = message.withMessage { m in
            PluginStatus(abi: initialize(HostServices.table, UInt32(IP_ABI_MINOR), &pluginMinor, m))
        }
        guard status == .ok else {
            let text = message.text
            throw ABIReading.Failure("init failed (\(status))\(text.isEmpty ? "" : ": \(text)")")
        }
        guard pluginMinor <= UInt32(IP_ABI_MINOR) else {
            throw ABIReading.Failure("init answered ABI minor \(pluginMinor), newer than the host's \(IP_ABI_MINOR)")
        }
        return Int(pluginMinor)
    }

    func coders() throws -> [PluginCoder] {
        guard let raw = factory(IP_CODER_FACTORY_ID) else { return [] }
        let factory = try ABIReading.read(raw, as: ip_coder_factory.self, named: "coder factory")
        return try items(factory.coders, count: factory.coder_count, named: "coders").map {
            try PluginCoder(reading: $0, pluginID: entry.id)
        }
    }

    func loaders() throws -> [PluginLoader] {
        guard let raw = factory(IP_LOADER_FACTORY_ID) else { return [] }
        let factory = try ABIReading.read(raw, as: ip_loader_factory.self, named: "loader factory")
        return try items(factory.loaders, count: factory.loader_count, named: "loaders").map {
            try PluginLoader(reading: $0, pluginID: entry.id)
        }
    }

    func caches() throws -> [PluginCache] {
        guard let raw = factory(IP_CACHE_FACTORY_ID) else { return [] }
        let factory = try ABIReading.read(raw, as: ip_cache_factory.self, named: "cache factory")
        return try items(factory.caches, count: factory.cache_count, named: "caches").map {
            try PluginCache(reading: $0, pluginID: entry.id)
        }
    }

    private func factory(_ id: String) -> UnsafeRawPointer? {
        rawEntry.get_factory.flatMap { get in id.withCString { get($0) } }
    }

    private func items<T>(_ list: UnsafePointer<UnsafePointer<T>?>?, count: UInt32, named name: String) throws -> [UnsafePointer<T>?] {
        guard count <= 256 else { throw ABIReading.Failure("\(name): count \(count) is absurd") }
        guard count == 0 || list != nil else { throw ABIReading.Failure("\(name) list is NULL") }
        return (0..<Int(count)).map { list![$0] }
    }
}
