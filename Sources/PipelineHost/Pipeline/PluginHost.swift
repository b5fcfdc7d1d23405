/// The plugins of one search path and the managers built on them: what a program embeds.
public final class PluginHost: Sendable {
    public let registry: PluginRegistry
    public let coders: CodersManager
    public let loaders: LoadersManager
    public let caches: CachesManager

    /// `loaderConfigurations`: "key=value" lines per URL scheme, handed to the loaders when they are opened
    /// (`LoadersManager`); a plugin never reads its configuration from the environment itself.
    public init(registry: PluginRegistry, loaderConfigurations: [String: String] = [:]) {
        self.registry = registry
        let nothingInstalled = registry.nothingLoaded
        coders = CodersManager(coders: registry.coders, nothingInstalled: nothingInstalled)
        loaders = LoadersManager(loaders: registry.loaders, configurations: loaderConfigurations, nothingInstalled: nothingInstalled)
        caches = CachesManager(pluginCaches: registry.caches)
    }

    /// Scans a search path and builds the managers; `cachePath` is the registry cache directory (nil: none).
    /// The default path is the CLI's: the per-user and system folders `make install` and the package fill, so an
    /// application that embeds the library finds installed plugins without any configuration.
    public convenience init(searchPath: PluginSearchPath = .default, cachePath: String? = PluginRegistry.defaultCachePath,
                            loaderConfigurations: [String: String] = [:]) {
        self.init(registry: PluginRegistry.scan(searchPath, cachePath: cachePath), loaderConfigurations: loaderConfigurations)
    }
}
