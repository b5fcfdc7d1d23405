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
    private var openedFiles: Set<String> = []
    private var scanned = false

    init(searchPath: PluginSearchPath, cachePath: String?) {
        self.searchPath = searchPath
        self.cachePath = cachePath
    }

    var knownIDs: [String] { coders.keys.sorted() }

    /// Opens one plugin file now (a preload hint, or a request's file) and keeps the coders it provides.
    func open(_ path: String) {
        guard openedFiles.insert(path).inserted else { return }
        // The host's registry validated this file with RTLD_NOW (see PluginLibrary), as it did for its own lazy opens.
        let (inspection, tables) = PluginRegistry.inspectNow(path, bindNow: false)
        guard let tables else { return }
        for descriptor in inspection.coders where coders[descriptor.id] == nil {
            guard let table = tables.coders[descriptor.id] else { continue }
            coders[descriptor.id] = PluginCoder(descriptor: descriptor, table: LazyTable(loaded: table), pluginPath: path)
        }
    }

    func coder(_ id: String, file: String?) -> PluginCoder? {
        if let coder = coders[id] { return coder }
        if let file { open(file) }
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
