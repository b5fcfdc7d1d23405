#if canImport(Glibc)
import Glibc
#endif
import PluginAPI
import VersionedStructs

/// Opens one plugin file and turns its entry table into host objects, or a reason it was refused.
///
/// Opened with RTLD_NOW (unresolved symbols fail here, not mid-request), RTLD_LOCAL (plugins cannot see each
/// other's symbols), RTLD_NODELETE and RTLD_DEEPBIND (see PluginLinking); never dlclose'd, because a Swift plugin
/// unloaded by dlclose crashes the process at the next type lookup (../shared/PLATFORM-NOTES.md, outside this tree). The one exception to RTLD_NOW: a file the registry already
/// validated with RTLD_NOW (in the scanner child, recorded in the cache under its inode, size and mtime) is opened
/// lazily, since binding every symbol of librsvg's forty libraries up front costs about a millisecond per start.
struct PluginLibrary {
    let entry: PluginEntryInfo
    let rawEntry: ip_plugin_entry
    /// The path the plugin was loaded from, as the user named it (given to `init`).
    let path: String

    enum OpenResult {
        case opened(PluginLibrary)
        case refused(String, PluginEntryInfo?)
    }

    static func open(path: String, bindNow: Bool = true) -> OpenResult {
        let file: PluginFileCheck.CheckedFile
        switch PluginFileCheck.open(path: path) {
        case .success(let checked): file = checked
        case .failure(let refusal): return .refused(refusal.reason, nil)
        }
        // The descriptor that was checked is the file that is mapped (see PluginFileCheck). It stays open once the
        // library is loaded: the dynamic linker knows the library by the name "/proc/self/fd/N" and answers a later
        // dlopen of that name with it, so N must never name another file in this process.
        _ = dlerror()
        guard let handle = dlopen(file.loadPath, PluginLinking.mode(bindNow: bindNow)) else {
            // dlerror names the descriptor path; the user knows the file by its own.
            let reason = dlerror().map { String(cString: $0).replacing(file.loadPath, with: path) } ?? "unknown dlopen error"
            file.close()
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
            return .opened(PluginLibrary(entry: info, rawEntry: rawEntry, path: path))
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
            PluginSearchPath.absolute(path).withCString { path in
                PluginStatus(abi: initialize(HostServices.table(forPlugin: entry.id), path, UInt32(IP_ABI_MINOR), &pluginMinor, m))
            }
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

    /// Every component's descriptor and table, validated; nothing of the plugin runs but get_factory.
    struct Inspection {
        var coders: [(CoderDescriptor, CoderEntryPoints)] = []
        var loaders: [(LoaderDescriptor, LoaderEntryPoints)] = []
        var caches: [(CacheDescriptor, CacheEntryPoints)] = []
        var isEmpty: Bool { coders.isEmpty && loaders.isEmpty && caches.isEmpty }
    }

    func inspect() throws -> Inspection {
        var result = Inspection()
        if let raw = factory(IP_CODER_FACTORY_ID) {
            let factory = try ABIReading.read(raw, as: ip_coder_factory.self, named: "coder factory")
            for pointer in try items(factory.coders, count: factory.coder_count, named: "coders") {
                let table = try ABIReading.read(pointer, as: ip_coder.self, named: "coder")
                let descriptor = try CoderDescriptor(reading: table.descriptor, pluginID: entry.id)
                let entryPoints = CoderEntryPoints(pointer: pointer!, table: table)
                try PluginCoder.checkSlots(entryPoints, descriptor)
                result.coders.append((descriptor, entryPoints))
            }
        }
        if let raw = factory(IP_LOADER_FACTORY_ID) {
            let factory = try ABIReading.read(raw, as: ip_loader_factory.self, named: "loader factory")
            for pointer in try items(factory.loaders, count: factory.loader_count, named: "loaders") {
                let table = try ABIReading.read(pointer, as: ip_loader.self, named: "loader")
                let descriptor = try LoaderDescriptor(reading: table.descriptor, pluginID: entry.id)
                let entryPoints = LoaderEntryPoints(pointer: pointer!, table: table)
                guard entryPoints.isComplete else {
                    throw ABIReading.Failure("loader \(descriptor.id) lacks start (or open, start2 and close), cancel or release")
                }
                let writes = table.open != nil && table.put != nil && table.describe != nil
                guard (descriptor.capabilities & UInt64(IP_LOADER_WRITES) != 0) == writes else {
                    throw ABIReading.Failure(writes
                        ? "loader \(descriptor.id) has put and describe but does not claim IP_LOADER_WRITES"
                        : "loader \(descriptor.id) claims IP_LOADER_WRITES without open, put and describe")
                }
                result.loaders.append((descriptor, entryPoints))
            }
        }
        if let raw = factory(IP_CACHE_FACTORY_ID) {
            let factory = try ABIReading.read(raw, as: ip_cache_factory.self, named: "cache factory")
            for pointer in try items(factory.caches, count: factory.cache_count, named: "caches") {
                let table = try ABIReading.read(pointer, as: ip_cache.self, named: "cache")
                let descriptor = try CacheDescriptor(reading: table.descriptor, pluginID: entry.id)
                let entryPoints = CacheEntryPoints(pointer: pointer!, table: table)
                guard entryPoints.open != nil, table.get != nil, table.put != nil, table.remove != nil, table.close != nil else {
                    throw ABIReading.Failure("cache \(descriptor.id) lacks one of open, get, put, remove, close")
                }
                result.caches.append((descriptor, entryPoints))
            }
        }
        return result
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
