#if canImport(Glibc)
import Glibc
#endif

/// Everything found on the search path: a record per file, and the coders, loaders and caches of the plugins
/// that loaded. Built once by `scan` and immutable afterwards.
///
/// Routing data (descriptors) and loaded instances are kept apart so that a registry cache can later answer
/// routing questions without opening every plugin.
public final class PluginRegistry: Sendable {
    public let searchPath: PluginSearchPath
    public let records: [PluginRecord]
    public let coders: [PluginCoder]
    public let loaders: [PluginLoader]
    public let caches: [PluginCache]

    init(searchPath: PluginSearchPath, records: [PluginRecord], coders: [PluginCoder], loaders: [PluginLoader], caches: [PluginCache]) {
        self.searchPath = searchPath
        self.records = records
        self.coders = coders
        self.loaders = loaders
        self.caches = caches
    }

    /// Finds every `*.so` on the search path, in path order and by name within a folder.
    /// The first plugin (or component) with an ID wins; later ones are listed as shadowed.
    ///
    /// A file whose inspection is in the registry cache (same path, size, mtime, inode) is not opened: its
    /// components open their plugin on first use. Permission checks run every time.
    ///
    /// With a `scanner`, files that miss the cache are inspected in a child process, so a plugin that crashes or
    /// hangs while being opened is listed as refused (and cached so until its file changes) instead of killing
    /// this process; their components then open lazily too. Without one (the default) they are inspected here.
    ///
    /// `cachedOnly` leaves out every file the cache does not know (nothing is inspected, nothing written): the
    /// registry a worker reads to resolve a preload guess (`PreloadHint`) without opening plugins it may not need.
    public static func scan(_ searchPath: PluginSearchPath, cachePath: String? = defaultCachePath,
                            scanner: PluginScanner? = nil, cachedOnly: Bool = false) -> PluginRegistry {
        let cache = RegistryCache(directory: cachePath)
        let facts = FolderFacts()
        let folders = searchPath.entries.map { (entry: $0, files: pluginFiles(in: $0.directory)) }
        var refusals: [String: String] = [:]
        // Each file's cache key is read once, before it is inspected: a file replaced while it is being inspected
        // then keeps the key of the file that was inspected, and is inspected again at the next scan.
        var keys: [String: FileKey] = [:]
        for path in folders.flatMap(\.files) {
            refusals[path] = PluginFileCheck.refusal(path: path, facts: facts)
            if refusals[path] == nil { keys[path] = FileKey(path: path) }
        }
        let scanned = scanner.map { scanner in
            scanner.inspect(folders.flatMap(\.files).filter { path in
                guard let key = keys[path] else { return false }  // refused files have no key
                return cache.lookup(path, key: key) == nil
            })
        } ?? [:]
        var records: [PluginRecord] = []
        var coders: [PluginCoder] = []
        var loaders: [PluginLoader] = []
        var caches: [PluginCache] = []
        var pluginOwners: [String: String] = [:]
        var componentOwners: [String: String] = [:]

        for (entry, files) in folders {
            cache.scanned(folder: entry.directory)
            for path in files {
                if let reason = refusals[path] {
                    records.append(.refused(path, reason))
                    continue
                }
                var tables: OpenedTables?
                let inspection: FileInspection
                let key = keys[path]
                if let key, let cached = cache.lookup(path, key: key) {
                    inspection = cached
                } else if cachedOnly {
                    continue
                } else if let childInspection = scanned[path] {
                    inspection = childInspection
                    if let key { cache.store(path, key: key, inspection: inspection) }
                } else {
                    (inspection, tables) = inspectNow(path)
                    if let key { cache.store(path, key: key, inspection: inspection) }
                }
                let state = record(path, inspection)
                if let refusal = inspection.refusal {
                    records.append(state(.refused(reason: refusal), [], [], [], []))
                    continue
                }
                let pluginID = inspection.pluginID ?? path
                if let owner = pluginOwners[pluginID] {
                    records.append(state(.shadowed(by: owner), [], [], [], []))
                    continue
                }
                pluginOwners[pluginID] = path
                let source = PluginSource(path: path, pluginID: pluginID)
                var shadowed: [String] = []
                func admit(_ id: String) -> Bool {
                    if let owner = componentOwners[id] { shadowed.append("\(id) (by \(owner))"); return false }
                    componentOwners[id] = path
                    return true
                }
                let newCoders = inspection.coders.filter { admit($0.id) }.map { descriptor in
                    PluginCoder(descriptor: descriptor, table: tables?.coders[descriptor.id].map { LazyTable(loaded: $0) }
                                ?? LazyTable { try source.coder(descriptor.id) }, pluginPath: path)
                }
                let newLoaders = inspection.loaders.filter { admit($0.id) }.map { descriptor in
                    PluginLoader(descriptor: descriptor, table: tables?.loaders[descriptor.id].map { LazyTable(loaded: $0) }
                                 ?? LazyTable { try source.loader(descriptor.id) })
                }
                let newCaches = inspection.caches.filter { admit($0.id) }.map { descriptor in
                    PluginCache(descriptor: descriptor, table: tables?.caches[descriptor.id].map { LazyTable(loaded: $0) }
                                ?? LazyTable { try source.cache(descriptor.id) })
                }
                coders += newCoders
                loaders += newLoaders
                caches += newCaches
                records.append(state(.loaded, newCoders.map(\.descriptor.id), newLoaders.map(\.descriptor.id),
                                     newCaches.map(\.descriptor.id), shadowed))
            }
        }
        if !cachedOnly { cache.save() }
        return PluginRegistry(searchPath: searchPath, records: records, coders: coders, loaders: loaders, caches: caches)
    }

    /// Where the registry cache lives by default (nil when IMAGEPIPE_REGISTRY_CACHE=off or there is no home).
    public static var defaultCachePath: String? { RegistryCache.defaultDirectory() }

    /// A record builder for one file's inspection.
    private static func record(_ path: String, _ i: FileInspection)
        -> (PluginRecord.State, [String], [String], [String], [String]) -> PluginRecord {
        { state, coders, loaders, caches, shadowed in
            PluginRecord(path: path, state: state, pluginID: i.pluginID, name: i.name, version: i.version,
                         abiVersion: i.abiVersion, negotiatedMinor: state == .loaded ? i.negotiatedMinor : nil,
                         coderIDs: coders, loaderIDs: loaders, cacheIDs: caches, shadowedComponents: shadowed)
        }
    }

    /// Opens a file now: dlopen, entry, every table (validated before any plugin code runs), then init.
    /// `bindNow: false` only for a file already validated with RTLD_NOW (see PluginLibrary).
    static func inspectNow(_ path: String, bindNow: Bool = true) -> (FileInspection, OpenedTables?) {
        var inspection = FileInspection()
        let library: PluginLibrary
        switch PluginLibrary.open(path: path, bindNow: bindNow) {
        case .refused(let reason, let info):
            inspection.pluginID = info?.id
            inspection.name = info?.name
            inspection.version = info?.version
            inspection.abiVersion = info?.abiVersion
            inspection.refusal = reason
            return (inspection, nil)
        case .opened(let opened):
            library = opened
        }
        inspection.pluginID = library.entry.id
        inspection.name = library.entry.name
        inspection.version = library.entry.version
        inspection.abiVersion = library.entry.abiVersion
        do {
            let found = try library.inspect()
            if found.isEmpty { throw ABIReading.Failure("provides no coder, loader or cache") }
            inspection.negotiatedMinor = try library.initialize()
            inspection.coders = found.coders.map(\.0)
            inspection.loaders = found.loaders.map(\.0)
            inspection.caches = found.caches.map(\.0)
            let tables = OpenedTables(
                coders: Dictionary(found.coders.map { ($0.0.id, $0.1) }, uniquingKeysWith: { a, _ in a }),
                loaders: Dictionary(found.loaders.map { ($0.0.id, $0.1) }, uniquingKeysWith: { a, _ in a }),
                caches: Dictionary(found.caches.map { ($0.0.id, $0.1) }, uniquingKeysWith: { a, _ in a }))
            return (inspection, tables)
        } catch {
            inspection.refusal = "\(error)"
            return (inspection, nil)
        }
    }

    /// The `*.so` files of a folder, sorted by name; a missing folder has none.
    static func pluginFiles(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".so"), !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted().map { directory + "/" + $0 }
    }
}

extension PluginRegistry {
    /// `PipelineError.noPlugins` naming every searched folder and what it held, when no plugin loaded; else nil.
    public var nothingLoaded: PipelineError? {
        guard !records.contains(where: \.isLoaded) else { return nil }
        return .noPlugins(searched: searchPath.entries.map { entry in
            guard entry.exists else { return "\(entry.directory) (missing)" }
            let refused = records.filter { PluginSearchPath.parent(of: $0.path) == entry.directory }.count
            return "\(entry.directory) (\(refused == 0 ? "no plugin files" : "\(refused) refused: see 'imagepipe plugins'"))"
        })
    }
}
