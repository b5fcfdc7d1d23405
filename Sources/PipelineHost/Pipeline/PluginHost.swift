/// The plugins of one search path and the managers built on them: what a program embeds.
public final class PluginHost: Sendable {
    public let registry: PluginRegistry
    public let coders: CodersManager
    public let loaders: LoadersManager
    public let caches: CachesManager

    public init(registry: PluginRegistry) {
        self.registry = registry
        coders = CodersManager(coders: registry.coders)
        loaders = LoadersManager(loaders: registry.loaders)
        caches = CachesManager(pluginCaches: registry.caches)
    }

    /// Scans a search path and builds the managers; `cachePath` is the registry cache directory (nil: none).
    public convenience init(searchPath: PluginSearchPath, cachePath: String? = PluginRegistry.defaultCachePath) {
        self.init(registry: PluginRegistry.scan(searchPath, cachePath: cachePath))
    }
}
