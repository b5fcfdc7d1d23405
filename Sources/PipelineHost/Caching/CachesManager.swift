/// The cache plugins that loaded. Query and store policies, the memory cache and the disk cache arrive with
/// the caching issue; for now the manager lists what the search path provides.
public final class CachesManager: Sendable {
    public let caches: [PluginCache]
    public init(caches: [PluginCache]) { self.caches = caches }
}
