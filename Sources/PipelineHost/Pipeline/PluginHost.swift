/// The plugins of one search path and the managers built on them: what a program embeds.
public final class PluginHost: Sendable {
    public let registry: PluginRegistry
    public let coders: CodersManager
    public let loaders: LoadersManager
    public let caches: CachesManager

    public init(registry: PluginRegistry) {
        self.registry = registry
        let nothingInstalled = registry.nothingLoaded
        coders = CodersManager(coders: registry.coders, nothingInstalled: nothingInstalled)
        loaders = LoadersManager(loaders: registry.loaders, nothingInstalled: nothingInstalled)
        caches = CachesManager(pluginCaches: registry.caches)
    }

    /// Scans a search path and builds the managers; `cachePath` is the registry cache directory (nil: none).
    /// The default path is the CLI's: the per-user and system folders `make install` and the package fill, so an
    /// application that embeds the library finds installed plugins without any configuration.
    public convenience init(searchPath: PluginSearchPath = .default, cachePath: String? = PluginRegistry.defaultCachePath) {
        self.init(registry: PluginRegistry.scan(searchPath, cachePath: cachePath))
    }
}
