/// The pipeline's front door: URL or path in, image out.
///
/// Stages, as Nuke's: memory cache → (coalesced by result key) data cache for a small derived result → original
/// bytes (data cache, or a fetch coalesced by URL key with the failed-URL list in front) → decode (bounded
/// executor; a raster source that has to be decoded in full anyway is decoded once for every size asked of it at
/// the same time) → finishing and transformers (bounded executor) → stores. Any number of concurrent requests for
/// one URL share one fetch; identical requests share everything; a shared operation is cancelled only when all
/// its waiters have cancelled. Blocking work (decodes, filters, encodes) never runs on Swift's cooperative
/// threads: each stage has its own `StageExecutor`.
public final class ImageManager: Sendable {
    public let host: PluginHost
    public let configuration: ImageManagerConfiguration
    private let fetches = Coalescer<String, [UInt8]>()
    private let results = Coalescer<String, Image>()
    /// Full-size decodes of raster sources, shared by the sizes asked of one source at once.
    private let fullDecodes = Coalescer<String, Image>()
    private let failed: FailedURLList
    let decoding: StageExecutor
    let processing: StageExecutor
    let encoding: StageExecutor
    private let counters = StatisticsCounters()

    /// One manager for the whole process, as Nuke's `ImagePipeline.shared`: the plugins of the default search path
    /// (the per-user and system folders `make install` and the package fill), default caches. Made on first use.
    public static let shared = ImageManager(host: PluginHost())

    public init(host: PluginHost, configuration: ImageManagerConfiguration = ImageManagerConfiguration()) {
        self.host = host
        self.configuration = configuration
        failed = FailedURLList(lifetime: configuration.failedURLLifetime)
        let cores = LinuxSystem.processorCount
        decoding = StageExecutor(name: "decoding", width: configuration.decodingWidth > 0 ? configuration.decodingWidth : cores)
        processing = StageExecutor(name: "processing", width: configuration.processingWidth > 0 ? configuration.processingWidth : cores)
        encoding = StageExecutor(name: "encoding", width: configuration.encodingWidth > 0 ? configuration.encodingWidth : cores)
    }

    /// Counts of cache hits, fetches, decodes and processings so far.
    public var statistics: PipelineStatistics { counters.snapshot }

    // MARK: Images

    public func image(for request: ImageRequest) async throws -> Image {
        try await image(for: request, progress: nil)
    }

    /// Loads and decodes `url` (a URL or an absolute path) with `options`.
    public func image(for url: String, options: DecodeOptions = DecodeOptions(), loadOptions: LoadOptions = LoadOptions()) async throws -> Image {
        try await image(for: ImageRequest(url: url, options: options, loadOptions: loadOptions))
    }

    /// SDWebImage's most common call: a thumbnail of a URL, optionally tinted as a template.
    public func image(for url: String, thumbnailPixelSize: PixelSize, tint: RGBAColor? = nil) async throws -> Image {
        try await image(for: url, options: DecodeOptions(thumbnailSize: thumbnailPixelSize, tint: tint, template: tint != nil))
    }

    /// The request's progress and its final image as an asynchronous sequence; ending the iteration cancels it.
    /// Previews come from the coder's incremental slots when it has them (and the isolation policy lets the coder
    /// run in this process); they pass through the same finishing and transformers as the final image, so they have
    /// its size; they are never cached.
    public func events(for request: ImageRequest) -> AsyncThrowingStream<ImageEvent, Error> {
        AsyncThrowingStream { continuation in
            let options = withSource(request.options, request.url)
            let previews = PreviewRenderer(coders: host.coders, options: options, transformers: request.transformers) {
                continuation.yield(.preview($0))
            }
            let task = Task {
                do {
                    let image = try await self.image(for: request) { event in
                        switch event {
                        case .progress(let received, let expected): continuation.yield(.progress(received: received, expected: expected))
                        case .snapshot(let bytes): previews.offer(bytes)
                        }
                    }
                    previews.stop()
                    continuation.yield(.image(image))
                    continuation.finish()
                } catch {
                    previews.stop()
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func image(for request: ImageRequest, progress: (@Sendable (FetchEvent) -> Void)?, priority: StageExecutor.Priority = .normal) async throws -> Image {
        let key = ImageCacheKey(request, filter: configuration.keyFilter)
        if request.fetchPolicy.readsCache, let hit = configuration.memoryCache?.image(for: key.imageKey) {
            counters.update { $0.memoryCacheHits += 1 }
            return hit
        }
        return try await results.value(for: key.imageKey + "|" + request.fetchPolicy.rawValue, progress: progress) { report in
            try await self.produce(request, key: key, priority: priority, report: report)
        }
    }

    private func produce(_ request: ImageRequest, key: ImageCacheKey, priority: StageExecutor.Priority,
                         report: @escaping @Sendable (FetchEvent) -> Void) async throws -> Image {
        let usesDataCache = dataCacheApplies(to: request.url)
        if request.fetchPolicy.readsCache, usesDataCache, !key.isPlainDecode,
           let blob = try? await configuration.dataCache?.data(for: key.imageKey), let image = ImageBlob.decode(blob) {
            configuration.memoryCache?.store(image, for: key.imageKey)
            return image
        }
        let options = withSource(request.options, request.url)
        var image: Image
        if !usesDataCache, let (source, route) = rangedSource(for: request, key: key, options: options) {
            counters.update { $0.fetches += 1; $0.rangedReads += 1 }
            do {
                image = try await decode(source.prefix, route: route, options: options, key: key, priority: priority, ranged: source)
            } catch let error as PipelineError {
                failed.record(error, for: key.dataKey)
                throw error
            }
        } else {
            image = try await withOriginal(of: request, key: key, report: report, remembersFailure: true) { bytes, route in
                try await self.decode(bytes, route: route, options: options, key: key, priority: priority)
            }
        }
        if !request.transformers.isEmpty {
            let decoded = image, transformers = request.transformers, limits = options.limits
            counters.update { $0.processings += 1 }
            image = try await processing.run(priority: priority) {
                try FinishingStep.transform(decoded, by: transformers, limits: limits)
            }
        }
        if request.fetchPolicy.writesCache {
            configuration.memoryCache?.store(image, for: key.imageKey)
            if usesDataCache, !key.isPlainDecode, let blob = ImageBlob.encode(image) {
                try? await configuration.dataCache?.store(blob, for: key.imageKey)
            }
        }
        return image
    }

    /// The decode stage, along the route chosen once for the bytes. A raster coder without a fast-thumbnail path
    /// (PNG, GIF, AVIF; not JPEG's and WebP's shrink-on-load, HEIF's embedded thumbnails or the vectors) decodes
    /// the full image whatever size is asked; that decode is shared by every size of the source asked at the same
    /// time (a srcset's three widths, two thumbnails of one URL: SizesFromOneDecode's `anySize`), and each size is
    /// finished from it on the processing executor. Everything else is one decode per request, routed per the
    /// isolation policy.
    /// `ranged`: the file read by ranges, when `bytes` is only its prefix (`rangedSource`).
    private func decode(_ bytes: [UInt8], route: CoderRoute, options: DecodeOptions, key: ImageCacheKey,
                        priority: StageExecutor.Priority, ranged: RangedSource? = nil) async throws -> Image {
        let coders = host.coders, coder = route.coder
        if options.thumbnailSize != nil, !route.isIsolated, SizesFromOneDecode.applies(to: coder, scope: .anySize) {
            let shared = SizesFromOneDecode.decodeOptions(options, scope: .anySize)
            let raw = try await fullDecodes.value(for: key.dataKey + "|full|" + shared.resultKeyTerms.joined(separator: "|")) { _ in
                self.counters.update { $0.decodes += 1 }
                return try await self.cancellable(limits: shared.limits) { context in
                    try await self.decoding.run(priority: priority) {
                        try bytes.withUnsafeBytes { try coder.decodeRaw($0, options: shared, context: context, source: ranged) }
                    }
                }
            }
            // A full decode serves every size.
            return try await processing.run(priority: priority) { try SizesFromOneDecode.finish(raw, options: options, coder: coder) }
        }
        counters.update { $0.decodes += 1 }
        return try await cancellable(limits: options.limits) { context in
            try await self.decoding.run(priority: priority) {
                if let ranged { return try coders.decodeInProcess(source: ranged, coder: coder, options: options, cancellation: context) }
                return try coders.decode(data: bytes, options: options, isolation: nil, timeout: nil, cancellation: context, route: route)
            }
        }
    }

    /// A local file its coder reads by ranges, and the route for it, when that applies: a file of at least
    /// `rangedReadThreshold` bytes and within the request's `maxBytes`, not on the failed list, whose coder reads
    /// ranges in this process. The embedder's own loader, when it claims the URL, opens the file itself (it may
    /// confine what is read: `DataLoading.rangedSource`); otherwise a `file:` URL is opened here, only when some
    /// plugin loader reads it at all. Anything else, a file that cannot be opened included, takes the loader's path.
    /// The ranged source and route `image(for:)` would take for `request` (nil where it would read the bytes), for a
    /// caller that decodes by itself, as the batch command does, so that both hold a file to the same rules.
    public func rangedSource(for request: ImageRequest) -> (RangedSource, CoderRoute)? {
        guard !dataCacheApplies(to: request.url) else { return nil }
        return rangedSource(for: request, key: ImageCacheKey(request, filter: configuration.keyFilter),
                            options: withSource(request.options, request.url))
    }

    private func rangedSource(for request: ImageRequest, key: ImageCacheKey, options: DecodeOptions) -> (RangedSource, CoderRoute)? {
        guard let threshold = configuration.rangedReadThreshold, request.fetchPolicy.mayLoad,
              request.retryFailed || failed.failure(for: key.dataKey) == nil else { return nil }
        let source: RangedSource?
        if let loader = configuration.sourceLoader, loader.canLoad(url: request.url) {
            source = loader.rangedSource(url: request.url, options: request.loadOptions, threshold: threshold)
        } else if urlScheme(of: request.url) == "file", host.loaders.canLoad(url: request.url) {
            source = RangedSource(url: request.url, threshold: threshold)
        } else {
            source = nil
        }
        guard let source, request.loadOptions.maxBytes.map({ source.size <= UInt64(max($0, 0)) }) ?? true,
              let route = host.coders.rangedRoute(for: source, options: options) else { return nil }
        return (source, route)
    }

    /// Runs `body` with a call context that the task's cancellation fires (a running C decode polls it).
    private func cancellable<T: Sendable>(limits: DecodeLimits, _ body: (CallContext) async throws -> T) async throws -> T {
        let context = CallContext(limits: limits)
        return try await withTaskCancellationHandler {
            try await body(context)
        } onCancel: {
            context.cancel()
        }
    }

    // MARK: Encoding

    /// The request's image encoded as `format`, the encode on the encoding executor: what a service answers with.
    /// With `options.keepMetadata`, the source's Exif and XMP as the policy keeps them are embedded: read from the
    /// original bytes (the data cache's copy, or the file), by a probe, after the image is ready.
    public func encodedImage(for request: ImageRequest, format: String, options: EncodeOptions = EncodeOptions()) async throws -> [UInt8] {
        let image = try await image(for: request)
        let coders = host.coders, policy = options.keepMetadata
        let original = policy == .none ? nil : try await data(for: request)
        let decodeOptions = withSource(request.options, request.url)
        return try await encoding.run {
            let metadata = original.flatMap { coders.keptMetadata(of: $0, policy: policy, options: decodeOptions) }
            return try coders.encode(image, format: format, options: options, metadata: metadata)
        }
    }

    // MARK: Original bytes

    /// The original bytes of a request's URL, from the data cache or one shared fetch.
    public func data(for request: ImageRequest) async throws -> [UInt8] {
        try await originalDataAndSource(request, key: ImageCacheKey(request, filter: configuration.keyFilter), report: { _ in }).bytes
    }

    /// The original bytes and whether they came from the data cache (a batch reports which layer served it).
    public func originalData(for request: ImageRequest) async throws -> (bytes: [UInt8], fromCache: Bool) {
        try await originalDataAndSource(request, key: ImageCacheKey(request, filter: configuration.keyFilter), report: { _ in })
    }

    /// A decode failure that condemns the bytes themselves (not a limit, a cancellation or a crashed worker): cached
    /// bytes that fail so are evicted, so one bad body does not fail every later run without a request.
    static func isAboutTheBytes(_ error: PipelineError) -> Bool {
        switch error {
        case .unknownFormat: true
        case .decodingFailed(_, let status, _): status == .invalidData || status == .truncated || status == .unsupported
        default: false
        }
    }

    /// The original bytes of `request` handed to `body` with their route: the one sniff of those bytes, whatever
    /// `body` reads from them. Fetched bytes are kept in the data cache once `body` succeeds, or fails for a reason
    /// that is not about the bytes (a limit, a cancellation); cached bytes that turn out bad are evicted, so one bad
    /// body does not fail every later run without a request. `remembersFailure`: a decode failure joins the
    /// failed-URL list, as a fetch failure does.
    private func withOriginal<T>(of request: ImageRequest, key: ImageCacheKey, report: @escaping @Sendable (FetchEvent) -> Void,
                                 remembersFailure: Bool, _ body: ([UInt8], CoderRoute) async throws -> T) async throws -> T {
        let (bytes, fromCache) = try await originalDataAndSource(request, key: key, report: report, storeFetched: false)
        let result: T
        do {
            let route = try host.coders.route(for: bytes, options: withSource(request.options, request.url))
            result = try await body(bytes, route)
        } catch let error as PipelineError {
            if remembersFailure { failed.record(error, for: key.dataKey) }
            let aboutTheBytes = Self.isAboutTheBytes(error)
            if fromCache, aboutTheBytes { try? await configuration.dataCache?.removeData(for: key.dataKey) }
            if !fromCache, !aboutTheBytes { await storeOriginal(bytes, of: request, key: key) }
            throw error
        }
        if !fromCache { await storeOriginal(bytes, of: request, key: key) }
        return result
    }

    /// The original bytes, and whether they came from the data cache.
    ///
    /// Fetched bytes are stored only when a coder recognises them: an HTML error page served with status 200 as
    /// `image/png` would otherwise be served from the cache, without a request, until the cache is cleared.
    /// `storeFetched` false: the caller decodes the bytes and stores them itself once they decoded (or failed for a
    /// reason that is not about the bytes), which saves the separate sniff that storing here needs.
    private func originalDataAndSource(_ request: ImageRequest, key: ImageCacheKey, report: @escaping @Sendable (FetchEvent) -> Void,
                                       storeFetched: Bool = true) async throws -> (bytes: [UInt8], fromCache: Bool) {
        let usesDataCache = dataCacheApplies(to: request.url)
        if request.fetchPolicy.readsCache, usesDataCache, let cached = try? await configuration.dataCache?.data(for: key.dataKey) {
            report(.progress(received: cached.count, expected: cached.count))
            return (cached, true)
        }
        guard request.fetchPolicy.mayLoad else { throw PipelineError.notInCache(url: request.url) }
        if !request.retryFailed, let failure = failed.failure(for: key.dataKey) { throw failure }
        var loadOptions = request.loadOptions
        if request.options.limits.maxInputBytes > 0 {
            loadOptions.maxBytes = min(loadOptions.maxBytes ?? Int.max, request.options.limits.maxInputBytes)
        }
        configuration.requestModifier?(request.url, &loadOptions)
        let url = request.url, loaders = host.loaders, validate = configuration.responseValidator
        let redirectPolicy = configuration.redirectPolicy
        let own = configuration.sourceLoader.flatMap { $0.canLoad(url: url) ? $0 : nil }
        let options = loadOptions
        do {
            let counters = self.counters
            let bytes = try await fetches.value(for: key.dataKey, progress: report) { fetchReport in
                counters.update { $0.fetches += 1 }
                if let own { return try await own.load(url: url, options: options) }
                return try await loaders.load(url: url, options: options, hooks: LoadHooks(
                    validateResponse: validate,
                    progress: { fetchReport(.progress(received: $0, expected: $1)) },
                    snapshot: { fetchReport(.snapshot($0)) },
                    approveRedirect: redirectPolicy))
            }
            failed.remove(key.dataKey)
            // The cheap conditions first: the sniff (which loads an isolated coder into this process) only when
            // the bytes would really be stored.
            if storeFetched, request.fetchPolicy.writesCache, usesDataCache, host.coders.coder(forData: bytes) != nil {
                try? await configuration.dataCache?.store(bytes, for: key.dataKey)
            }
            return (bytes, false)
        } catch let error as PipelineError {
            failed.record(error, for: key.dataKey)
            throw error
        }
    }

    /// Keeps fetched original bytes in the data cache, where the request's policy and the source's kind allow it.
    private func storeOriginal(_ bytes: [UInt8], of request: ImageRequest, key: ImageCacheKey) async {
        guard request.fetchPolicy.writesCache, dataCacheApplies(to: request.url) else { return }
        try? await configuration.dataCache?.store(bytes, for: key.dataKey)
    }

    /// Whether the data cache holds the source's bytes (then no request is made for them at all).
    private func hasCachedOriginal(_ request: ImageRequest, key: ImageCacheKey) async -> Bool {
        guard request.fetchPolicy.readsCache, dataCacheApplies(to: request.url), let cache = configuration.dataCache else { return false }
        return (try? await cache.data(for: key.dataKey)) != nil
    }

    private func dataCacheApplies(to url: String) -> Bool {
        configuration.dataCache != nil && (configuration.cacheLocalFiles || urlScheme(of: url) != "file")
            && configuration.sourceLoader?.canLoad(url: url) != true
    }

    // MARK: Facts and frames

    /// Reads a source's facts without decoding it.
    public func info(for url: String, options: DecodeOptions = DecodeOptions(), loadOptions: LoadOptions = LoadOptions()) async throws -> ImageInfo {
        let request = ImageRequest(url: url, options: options, loadOptions: loadOptions)
        let key = ImageCacheKey(request, filter: configuration.keyFilter)
        let options = withSource(options, url), coders = host.coders
        let prefix = PrefixInfo(loaders: host.loaders, coders: coders, configuration: configuration)
        if prefix.applies(to: request), !(await hasCachedOriginal(request, key: key)), let info = await prefix.info(for: request, options: options) {
            counters.update { $0.fetches += 1 }
            return info
        }
        return try await withOriginal(of: request, key: key, report: { _ in }, remembersFailure: false) { bytes, route in
            try coders.probe(data: bytes, options: options, route: route)
        }
    }

    /// Every frame of an animation (bounded by `options.limits.maxFrames`), or the one image of a still source.
    public func frames(for url: String, options: DecodeOptions = DecodeOptions(), loadOptions: LoadOptions = LoadOptions()) async throws -> [Image] {
        try await animation(for: ImageRequest(url: url, options: options, loadOptions: loadOptions)).frames
    }

    /// Every frame of an animation (each finished and transformed like a still image) and its loop count (nil: not
    /// stated), from one load of the source: what an animated output needs.
    public func animation(for request: ImageRequest) async throws -> Animation {
        let options = withSource(request.options, request.url), transformers = request.transformers
        let coders = host.coders, key = ImageCacheKey(request, filter: configuration.keyFilter)
        return try await withOriginal(of: request, key: key, report: { _ in }, remembersFailure: false) { bytes, route in
            counters.update { $0.decodes += 1 }
            return try await decoding.run { try coders.animation(data: bytes, options: options, transformers: transformers, route: route) }
        }
    }

    /// The request's options with the source-URL hint filled in (a file: URL for a path): the one place it is defaulted.
    private func withSource(_ options: DecodeOptions, _ url: String) -> DecodeOptions {
        var options = options
        if options.sourceURL == nil { options.sourceURL = SourceURL.fileURL(for: url) }
        return options
    }
}

/// The source-URL hint coders receive: a file: URL for local files, the URL itself otherwise.
enum SourceURL {
    static func fileURL(for url: String) -> String {
        guard url.hasPrefix("/") else { return url }
        var encoded = "file://"
        for byte in url.utf8 {
            let c = Character(UnicodeScalar(byte))
            if c.isASCII && (c.isLetter || c.isNumber || "/-._~".contains(c)) { encoded.append(c) }
            else { encoded += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true) }
        }
        return encoded
    }
}
