/// The coders a worker can run, found as requests need them.
///
/// Why not the registry up front: reading it (the cache, then a stat and permission check of every plugin file)
/// sat on the critical path of a one-shot CLI's only request. A request names the file the host's registry found
/// its coder in, so the worker opens exactly that file; the whole search path is scanned only for a request
/// without a file, or whose file does not provide the coder. Used by one thread (the worker serves one request at
/// a time).
final class WorkerCoders {
    private let searchPath: PluginSearchPath
    private let cachePath: String?
    private var coders: [String: PluginCoder] = [:]
    /// The coders each opened file provides (empty for a file that failed to open).
    private var files: [String: [String: PluginCoder]] = [:]
    private var scanned = false

    init(searchPath: PluginSearchPath, cachePath: String?) {
        self.searchPath = searchPath
        self.cachePath = cachePath
    }

    var knownIDs: [String] { coders.keys.sorted() }

    /// Opens one plugin file now (a preload hint, or a request's file) and keeps the coders it provides.
    func open(_ path: String) { _ = opened(path) }

    private func opened(_ path: String) -> [String: PluginCoder] {
        if let known = files[path] { return known }
        // The host's registry validated this file with RTLD_NOW (see PluginLibrary), as it did for its own lazy opens;
        // so did whichever inspection put it in the registry cache a preload hint found it in.
        let (inspection, tables) = PluginRegistry.inspectNow(path, bindNow: false)
        var provided: [String: PluginCoder] = [:]
        for descriptor in inspection.coders {
            guard let table = tables?.coders[descriptor.id] else { continue }
            provided[descriptor.id] = PluginCoder(descriptor: descriptor, table: LazyTable(loaded: table), pluginPath: path)
        }
        files[path] = provided
        for (id, coder) in provided where coders[id] == nil { coders[id] = coder }
        return provided
    }

    /// Opens the plugin a hint names (see `PreloadHint`), found in the registry cache only: a file the cache does
    /// not know is not inspected for a guess (that could mean opening every new plugin on the search path).
    /// `resolved`: the same hint already looked up while this worker waited for its settings, used when it was
    /// looked up against this worker's folders and cache.
    func preload(_ hint: PreloadHint, resolved: ResolvedPreload? = nil) {
        if let resolved, resolved.answers(hint, directories: searchPath.entries.map(\.directory), cachePath: cachePath) {
            if let path = resolved.pluginPath { open(path) }
            return
        }
        guard cachePath != nil else { return }
        let cached = PluginRegistry.scan(searchPath, cachePath: cachePath, cachedOnly: true)
        if let path = hint.pluginPath(among: cached.coders) { open(path) }
    }

    /// The coder `id` of `file` (the one the host's registry chose, even when a preload opened another file with a
    /// coder of the same ID); without a file, or when it does not provide the coder, any known one, then a scan.
    func coder(_ id: String, file: String?) -> PluginCoder? {
        if let file, let coder = opened(file)[id] { return coder }
        if let coder = coders[id] { return coder }
        if !scanned {
            scanned = true
            for coder in PluginRegistry.scan(searchPath, cachePath: cachePath).coders where coders[coder.descriptor.id] == nil {
                coders[coder.descriptor.id] = coder
            }
        }
        return coders[id]
    }
}
