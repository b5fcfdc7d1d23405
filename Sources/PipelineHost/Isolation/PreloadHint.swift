/// A guess, from the source's file name alone, at the plugin a new worker will need first, which the worker resolves
/// against its own registry and opens before it says it is ready.
///
/// Why the worker resolves it: a one-shot `imagepipe render icon.svg` spends its first milliseconds scanning the
/// registry (a permission check of every plugin file, the cache) before it knows which plugin holds the SVG coder,
/// and the worker's longest step (opening librsvg's library tree, 5-7 ms) waited for that answer. With a hint that
/// needs no registry, the host hands the start-up worker its settings as soon as the command line is parsed; the
/// worker finds the plugin in the registry cache (the same permission checks, only files the cache knows) while the
/// host does its own scan on the other core.
///
/// A wrong guess (a misnamed file) costs a plugin load on the worker's core, never a wrong decode: every request
/// names the coder, and the plugin file, that the host's own registry chose.
public struct PreloadHint: Sendable, Equatable {
    /// The source's file extension, lowercased, without the dot.
    public var fileExtension: String
    /// Whether every coder runs isolated (`--isolation isolated`); otherwise only a coder that recommends
    /// isolation (SVG, PDF) is worth opening, since the host decodes the others itself.
    public var everyCoderIsolated: Bool

    public init(fileExtension: String, everyCoderIsolated: Bool) {
        self.fileExtension = fileExtension.lowercased()
        self.everyCoderIsolated = everyCoderIsolated
    }

    /// The hint for a source path or URL: its last path component's extension; nil when it has none or nothing
    /// runs isolated.
    public init?(source: String, policy: Isolation) {
        guard policy != .inProcess, let dot = source.lastIndex(of: "."), !source[dot...].contains("/") else { return nil }
        let fileExtension = source[source.index(after: dot)...]
        guard !fileExtension.isEmpty, fileExtension.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        self.init(fileExtension: String(fileExtension), everyCoderIsolated: policy == .isolated)
    }

    /// The plugin file of the one decoding coder that claims the extension and would run isolated; nil when no
    /// coder or more than one does (then a guess would be a coin toss, and a load on the other core is not free).
    public func pluginPath(among coders: [PluginCoder]) -> String? {
        let claimants = coders.filter { coder in
            coder.descriptor.capabilities.contains(.decode) && coder.descriptor.extensions.contains(fileExtension)
                && (everyCoderIsolated || coder.descriptor.capabilities.contains(.recommendsIsolation))
        }
        return claimants.count == 1 ? claimants[0].pluginPath : nil
    }

    /// The worker-mode arguments that carry the hint (see `WorkerServer`).
    var workerArguments: [String] {
        ["--preload-extension", fileExtension] + (everyCoderIsolated ? ["--preload-every-coder"] : [])
    }
}

/// A preload hint resolved by a worker forked at start-up while it waits for its settings (see
/// `PreforkedWorker.prepare(guess:)`), against the search path the host was expected to send and the default
/// registry cache. The worker uses the answer only if its settings turn out to carry the same hint, folders and
/// cache; otherwise it resolves the hint again from what it was sent.
struct ResolvedPreload {
    var hint: PreloadHint
    var directories: [String]
    var cachePath: String?
    /// The plugin file to open; nil when the cache names none (or more than one) for the hint.
    var pluginPath: String?

    /// Reads the registry cache only (nothing is opened, so it is safe before the sandbox: no plugin code runs and
    /// no input is read).
    init(hint: PreloadHint, directories: [String], cachePath: String? = PluginRegistry.defaultCachePath) {
        let searchPath = PluginSearchPath(directories: directories)
        self.hint = hint
        self.directories = searchPath.entries.map(\.directory)
        self.cachePath = cachePath
        pluginPath = cachePath.flatMap { cachePath in
            hint.pluginPath(among: PluginRegistry.scan(searchPath, cachePath: cachePath, cachedOnly: true).coders)
        }
    }

    func answers(_ hint: PreloadHint, directories: [String], cachePath: String?) -> Bool {
        self.hint == hint && self.directories == directories && self.cachePath == cachePath
    }
}
