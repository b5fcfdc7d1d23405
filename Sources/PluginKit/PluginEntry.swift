import PluginAPI
import Synchronization

/// Factory tables by versioned ID for this plugin; filled by `PluginEntry.make` (from the entry's static
/// initialiser, before the host can call `get_factory`) and only read afterwards.
private let factoryTable = Mutex<[(id: String, table: StaticTable<Void>)]>([])

/// Builds the static `ip_plugin_entry` table of a Swift plugin.
///
/// Each plugin links its own copy of PluginKit, so these globals are per plugin. The plugin exports the
/// entry with `@_cdecl("imagepipe_plugin_entry")` returning the `pointer` of `PluginEntry.make(...)`, kept in a
/// global `let` (Swift initialises it once, thread-safely, on first use).
public enum PluginEntry {
    public static func make(
        id: String, name: String, version: String, vendor: String = "imagepipe", description: String,
        coders: [StaticTable<ip_coder>] = [],
        loaders: [StaticTable<ip_loader>] = [],
        caches: [StaticTable<ip_cache>] = []
    ) -> StaticTable<ip_plugin_entry> {
        if !coders.isEmpty {
            let list = StaticStorage.array(coders.map { Optional($0.pointer) })
            let factory = ip_coder_factory(
                struct_size: UInt32(MemoryLayout<ip_coder_factory>.size),
                coder_count: UInt32(coders.count), coders: list)
            factoryTable.withLock { $0.append((IP_CODER_FACTORY_ID, StaticTable(factory: StaticStorage.value(factory)))) }
        }
        if !loaders.isEmpty {
            let list = StaticStorage.array(loaders.map { Optional($0.pointer) })
            let factory = ip_loader_factory(
                struct_size: UInt32(MemoryLayout<ip_loader_factory>.size),
                loader_count: UInt32(loaders.count), loaders: list)
            factoryTable.withLock { $0.append((IP_LOADER_FACTORY_ID, StaticTable(factory: StaticStorage.value(factory)))) }
        }
        if !caches.isEmpty {
            let list = StaticStorage.array(caches.map { Optional($0.pointer) })
            let factory = ip_cache_factory(
                struct_size: UInt32(MemoryLayout<ip_cache_factory>.size),
                cache_count: UInt32(caches.count), caches: list)
            factoryTable.withLock { $0.append((IP_CACHE_FACTORY_ID, StaticTable(factory: StaticStorage.value(factory)))) }
        }
        let entry = ip_plugin_entry(
            struct_size: UInt32(MemoryLayout<ip_plugin_entry>.size),
            abi_major: UInt32(IP_ABI_MAJOR), abi_minor: UInt32(IP_ABI_MINOR),
            id: StaticStorage.cString(id), name: StaticStorage.cString(name),
            version: StaticStorage.cString(version), vendor: StaticStorage.cString(vendor),
            description: StaticStorage.cString(description),
            init: { host, pluginPath, hostMinor, pluginMinor, message in
                // The kit's tables fill ABI 1.1's slots only (those told their component): a 1.0 host would find
                // the 1.0 slots empty, so it is refused here, with the reason, rather than failing slot by slot.
                guard hostMinor >= 1 else {
                    writeMessage(message, "built with PluginKit for imagepipe ABI 1.1; this host speaks 1.\(hostMinor)")
                    return ip_status(IP_STATUS_UNSUPPORTED)
                }
                Host.attach(host, pluginPath: pluginPath)
                pluginMinor?.pointee = min(hostMinor, UInt32(IP_ABI_MINOR))
                return ip_status(IP_STATUS_OK)
            },
            deinit: nil,
            get_factory: { requested in
                guard let requested else { return nil }
                let wanted = String(cString: requested)
                return factoryTable.withLock { tables in tables.first(where: { $0.id == wanted })?.table.raw }
            },
            get_extension: { _ in nil })
        return StaticTable(StaticStorage.value(entry))
    }
}
