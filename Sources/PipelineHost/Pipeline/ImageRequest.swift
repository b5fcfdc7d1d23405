/// Whether a request may read and write the caches (URLImage's fetch policies).
public enum FetchPolicy: String, Sendable, CaseIterable {
    /// Serve from a cache when possible, else load and cache. The default.
    case returnCacheElseLoad = "cache-else-load"
    /// Serve from a cache only; a miss fails with `PipelineError.notInCache`.
    case returnCacheDontLoad = "cache-only"
    /// Ignore cached entries, load, and replace them.
    case refresh
    /// Ignore the caches entirely: neither read nor write.
    case loadWithoutCaching = "no-cache"

    var readsCache: Bool { self == .returnCacheElseLoad || self == .returnCacheDontLoad }
    var writesCache: Bool { self == .returnCacheElseLoad || self == .refresh }
    var mayLoad: Bool { self != .returnCacheDontLoad }
}

/// Everything that decides one result: where from, how to decode, what to do after, and cache use.
public struct ImageRequest: Sendable {
    /// A URL or an absolute path.
    public var url: String
    public var options: DecodeOptions
    public var loadOptions: LoadOptions
    public var fetchPolicy: FetchPolicy
    /// Load a URL that is on the failed-URL list anyway (and take it off the list if it works).
    public var retryFailed: Bool
    /// Applied in order after decoding; part of the cache key.
    public var transformers: [any ImageTransforming] {
        didSet { transformerIdentifiers = transformers.map(\.identifier) }
    }
    /// The transformers' keys as text, made once per change rather than on every cache lookup (a memory-cache hit
    /// builds the result key, and formatting a chain's parameters would be most of its cost).
    private(set) var transformerIdentifiers: [String]

    public init(url: String, options: DecodeOptions = DecodeOptions(), loadOptions: LoadOptions = LoadOptions(),
                fetchPolicy: FetchPolicy = .returnCacheElseLoad, retryFailed: Bool = false,
                transformers: [any ImageTransforming] = []) {
        self.url = url
        self.options = options
        self.loadOptions = loadOptions
        self.fetchPolicy = fetchPolicy
        self.retryFailed = retryFailed
        self.transformers = transformers
        transformerIdentifiers = transformers.map(\.identifier)
    }
}
