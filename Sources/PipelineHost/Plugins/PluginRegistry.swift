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

    /// Loads every `*.so` on the search path, in path order and by name within a folder.
    /// The first plugin (or component) with an ID wins; later ones are listed as shadowed.
    public static func scan(_ searchPath: PluginSearchPath) -> PluginRegistry {
        var records: [PluginRecord] = []
        var coders: [PluginCoder] = []
        var loaders: [PluginLoader] = []
        var caches: [PluginCache] = []
        var pluginOwners: [String: String] = [:]
        var componentOwners: [String: String] = [:]

        for entry in searchPath.entries {
            for path in pluginFiles(in: entry.directory) {
                let library: PluginLibrary
                switch PluginLibrary.open(path: path) {
                case .refused(let reason, let info):
                    records.append(.refused(path, reason, entry: info))
                    continue
                case .opened(let opened):
                    library = opened
                }
                let info = library.entry
                if let owner = pluginOwners[info.id] {
                    records.append(PluginRecord(
                        path: path, state: .shadowed(by: owner), pluginID: info.id, name: info.name, version: info.version,
                        abiVersion: info.abiVersion, negotiatedMinor: nil, coderIDs: [], loaderIDs: [], cacheIDs: [],
                        shadowedComponents: []))
                    continue
                }
                do {
                    // Read every table before init so a malformed plugin is refused without running its code.
                    let newCoders = try library.coders()
                    let newLoaders = try library.loaders()
                    let newCaches = try library.caches()
                    if newCoders.isEmpty && newLoaders.isEmpty && newCaches.isEmpty {
                        throw ABIReading.Failure("provides no coder, loader or cache")
                    }
                    let minor = try library.initialize()
                    pluginOwners[info.id] = path
                    var shadowed: [String] = []
                    func admit(_ id: String) -> Bool {
                        if let owner = componentOwners[id] { shadowed.append("\(id) (by \(owner))"); return false }
                        componentOwners[id] = path
                        return true
                    }
                    let keptCoders = newCoders.filter { admit($0.descriptor.id) }
                    let keptLoaders = newLoaders.filter { admit($0.descriptor.id) }
                    let keptCaches = newCaches.filter { admit($0.descriptor.id) }
                    coders += keptCoders
                    loaders += keptLoaders
                    caches += keptCaches
                    records.append(PluginRecord(
                        path: path, state: .loaded, pluginID: info.id, name: info.name, version: info.version,
                        abiVersion: info.abiVersion, negotiatedMinor: minor,
                        coderIDs: keptCoders.map(\.descriptor.id), loaderIDs: keptLoaders.map(\.descriptor.id),
                        cacheIDs: keptCaches.map(\.descriptor.id), shadowedComponents: shadowed))
                } catch {
                    records.append(.refused(path, "\(error)", entry: info))
                }
            }
        }
        return PluginRegistry(searchPath: searchPath, records: records, coders: coders, loaders: loaders, caches: caches)
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
