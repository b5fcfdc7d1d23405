import Synchronization

/// A plugin's C table, opened on first use.
///
/// With the registry cache, routing needs only descriptors; the plugin's library is dlopened the first time one
/// of its components is actually called. `@unchecked Sendable`: `table` is written once under `lock` and never
/// changes afterwards; the table itself is immutable static data inside a never-unloaded library.
final class LazyTable<Table>: @unchecked Sendable {
    private let lock = Mutex(())
    private var table: Table?
    private let load: @Sendable () throws -> Table

    init(loaded table: Table) {
        self.table = table
        load = { throw ABIReading.Failure("unreachable: table already loaded") }
    }

    init(load: @escaping @Sendable () throws -> Table) {
        self.load = load
    }

    func get() throws -> Table {
        try lock.withLock { _ in
            if let table { return table }
            let loaded = try load()
            table = loaded
            return loaded
        }
    }
}

/// One plugin file opened on demand: dlopen, entry, tables, init — once per process, whoever asks first.
final class PluginSource: Sendable {
    let path: String
    let pluginID: String
    private let opened = Mutex<OpenedTables?>(nil)

    init(path: String, pluginID: String) {
        self.path = path
        self.pluginID = pluginID
    }

    func coder(_ id: String) throws -> CoderEntryPoints {
        guard let table = try tables().coders[id] else { throw missing(id) }
        return table
    }

    func loader(_ id: String) throws -> LoaderEntryPoints {
        guard let table = try tables().loaders[id] else { throw missing(id) }
        return table
    }

    func cache(_ id: String) throws -> CacheEntryPoints {
        guard let table = try tables().caches[id] else { throw missing(id) }
        return table
    }

    private func missing(_ id: String) -> Error {
        PipelineError.pluginMisbehaved(plugin: pluginID, message: "\(path) no longer provides \(id); rescan the plugins")
    }

    private func tables() throws -> OpenedTables {
        try opened.withLock { current in
            if let current { return current }
            // Only files the registry validated (cache or scanner child) get a LazyTable: bind lazily.
            let (inspection, tables) = PluginRegistry.inspectNow(path, bindNow: false)
            guard let tables else {
                throw PipelineError.pluginMisbehaved(plugin: pluginID, message: "\(path): \(inspection.refusal ?? "cannot be loaded")")
            }
            current = tables
            return tables
        }
    }
}

/// `@unchecked Sendable`: immutable copies of static tables inside a never-unloaded library.
final class OpenedTables: @unchecked Sendable {
    let coders: [String: CoderEntryPoints]
    let loaders: [String: LoaderEntryPoints]
    let caches: [String: CacheEntryPoints]

    init(coders: [String: CoderEntryPoints], loaders: [String: LoaderEntryPoints], caches: [String: CacheEntryPoints]) {
        self.coders = coders
        self.loaders = loaders
        self.caches = caches
    }
}

import PluginAPI
import VersionedStructs
