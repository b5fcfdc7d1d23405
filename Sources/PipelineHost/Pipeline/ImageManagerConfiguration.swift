/// How an `ImageManager` loads, caches and validates. Every field has a default.
public struct ImageManagerConfiguration: Sendable {
    /// Decoded results. Default: a `MemoryCache` with its default limits; any `ImageCaching` store can take its
    /// place (as Nuke's `ImageCaching`); nil disables it.
    public var memoryCache: (any ImageCaching)?
    /// Encoded originals and small derived results (a `DiskCache`, a `CachesManager` with plugin caches ...).
    /// Default nil (no disk cache).
    public var dataCache: (any DataCaching)?
    /// Maps a URL to the URL used in cache keys (e.g. dropping signed query tokens). Default: identity.
    public var keyFilter: @Sendable (String) -> String
    /// The embedder's own loader, asked before the plugin loaders for every URL it `canLoad` (a service that reads
    /// files only through a descriptor of its root folder, say). What it loads is never copied into `dataCache`:
    /// its source is local. Default nil.
    public var sourceLoader: (any DataLoading)?
    /// Adjusts load options per request (headers such as Accept, timeouts). Default: none.
    public var requestModifier: (@Sendable (String, inout LoadOptions) -> Void)?
    /// Accepts or rejects a response before its body is read. Default: 2xx only (see `LoadHooks.acceptSuccess`).
    public var responseValidator: @Sendable (LoadResponse) throws -> Void
    /// Vets each redirect hop (status, absolute target) before the loader follows it; false fails the load as
    /// refused without contacting the target. Default nil: hops are bounded only by `LoadOptions.maxRedirects`.
    /// Set, it also stops loaders that cannot ask (ABI 1.0) from following redirects at all (`LoadHooks`).
    public var redirectPolicy: (@Sendable (Int, String) -> Bool)?
    /// How long a permanently failed URL stays on the failed list, in seconds. Default 300.
    public var failedURLLifetime: Double
    /// Also store originals of file: sources in the data cache. Default false: the file is its own cache, and a
    /// changed file would otherwise be served stale.
    public var cacheLocalFiles: Bool
    /// Local files at least this large are read by their coder in ranges, strip by strip, instead of whole
    /// (`RangedSource`), where the coder reads ranges in this process and nothing needs the whole bytes (no data
    /// cache for them). Default 16 MiB; nil reads every file whole.
    public var rangedReadThreshold: Int? = RangedSource.defaultThreshold
    /// Decodes, processings (transformers) and encodes that run at once, each on its own bounded executor.
    /// 0 (the default): one per core.
    public var decodingWidth: Int
    public var processingWidth: Int
    public var encodingWidth: Int

    public init(memoryCache: (any ImageCaching)? = MemoryCache(), dataCache: (any DataCaching)? = nil,
                keyFilter: @escaping @Sendable (String) -> String = { $0 },
                requestModifier: (@Sendable (String, inout LoadOptions) -> Void)? = nil,
                responseValidator: @escaping @Sendable (LoadResponse) throws -> Void = LoadHooks.acceptSuccess,
                failedURLLifetime: Double = 300, cacheLocalFiles: Bool = false,
                decodingWidth: Int = 0, processingWidth: Int = 0, encodingWidth: Int = 0) {
        self.memoryCache = memoryCache
        self.dataCache = dataCache
        self.keyFilter = keyFilter
        self.requestModifier = requestModifier
        self.responseValidator = responseValidator
        self.failedURLLifetime = failedURLLifetime
        self.cacheLocalFiles = cacheLocalFiles
        self.decodingWidth = decodingWidth
        self.processingWidth = processingWidth
        self.encodingWidth = encodingWidth
    }
}

/// The configuration's name before 0.x: it configures an `ImageManager`, so it is named after it.
@available(*, deprecated, renamed: "ImageManagerConfiguration")
public typealias ImagePipelineConfiguration = ImageManagerConfiguration
