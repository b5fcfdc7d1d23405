import FoundationEssentials
import PipelineHost
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The service's request logic: routes (/health, /metrics, /info, images), the signature, the source policy, the output
/// tiers (this process's memory, then the shared tier, then a render), HTTP semantics (ETag/304, Cache-Control,
/// Vary, Content-Type) and the error statuses, with one access-log line per request.
final class ServeHandler: Sendable {
    struct Settings: Sendable {
        var key: [UInt8]?
        var salt: [UInt8] = []
        var unsigned = false
        var sources: SourcePolicy
        var maxSide = 4096
        var limits = DecodeLimits()
        var loadOptions = LoadOptions()
        var timeout = 30.0
        var cacheMaxAge = 3600
        var accessLog = true
        var formats: [String] = ["avif", "webp", "jpg", "png"]
        var presets = Presets()
        /// `--watermark FILE`: what wm: draws.
        var watermark: WatermarkImage?
        /// `--format-quality avif=50,webp=75`: per output format, when a URL gives no q: (nor fq: for it).
        var formatQualities: [String: Int] = [:]
        /// `--keep-metadata`: what outputs keep of their sources' Exif and XMP when a URL's kmd: (sm:, kcr:) does not say.
        var keepMetadata = MetadataPolicy.none
        /// The versions of http(s) sources (`--source-ttl`, `--failed-ttl`): see `RemoteSourceVersions`.
        var versions = RemoteSourceVersions(maxLifetime: 600, failureLifetime: 10)

        /// The source as cache keys see it: an http(s) URL with its version (a digest of its bytes) appended, so
        /// every tier (decoded, output, shared, failed) keys a changed source anew and an unchanged one as before;
        /// a local source's URL already carries its file identity.
        var sourceVersion: @Sendable (String) -> String {
            let versions = self.versions
            return { url in
                guard Self.isRemote(url) else { return url }
                return url + "#v=" + versions.version(of: url)
            }
        }

        /// Sources with an origin to revalidate (ETag, Last-Modified): http(s), and s3 (the S3 loader sends the same
        /// conditional headers and reports the store's 304).
        static func isRemote(_ url: String) -> Bool { url.hasPrefix("http://") || url.hasPrefix("https://") || url.hasPrefix("s3://") }
    }

    let settings: Settings
    let manager: ImageManager
    let sharedTiers: SharedTiers?
    let outputs: OutputCache
    let originals: FetchedOriginals
    let gate: RenderGate
    let metrics = ServiceMetrics()
    private let draining = Atomic<Bool>(false)
    /// Paths already verified and parsed (see `VerifiedRequests`).
    let verified = VerifiedRequests()
    private let flights = Mutex<[String: Task<OutputCache.Entry, Error>]>([:])
    private let logLock = Mutex(())

    init(settings: Settings, manager: ImageManager, sharedTiers: SharedTiers?, outputs: OutputCache,
         originals: FetchedOriginals, gate: RenderGate) {
        self.settings = settings
        self.manager = manager
        self.sharedTiers = sharedTiers
        self.outputs = outputs
        self.originals = originals
        self.gate = gate
    }

    func startDraining() { draining.store(true, ordering: .releasing) }

    // MARK: Routing

    func handle(_ request: HTTPRequest) {
        let started = Self.now()
        let method = request.method, path = request.path, client = settings.accessLog ? request.client : ""
        let finish: @Sendable (Int, [(String, String)], [UInt8], String) -> Void = { [self] status, headers, body, tier in
            request.respond(status, headers: headers + [("Server", "imagepipe")], body: body, close: draining.load(ordering: .acquiring))
            let seconds = Self.now() - started
            metrics.record(status: status, seconds: seconds)
            if settings.accessLog { log(client: client, method: method, path: path, status: status, bytes: status == 304 ? 0 : body.count, seconds: seconds, tier: tier) }
        }
        guard method == "GET" || method == "HEAD" else {
            return finish(405, [("Allow", "GET, HEAD"), ("Content-Type", "text/plain")], Array("only GET and HEAD\n".utf8), "-")
        }
        if let refusal = Self.protocolRefusal(version: request.version, path: path, header: request.header) {
            return request.respond(400, headers: Self.text + [("Server", "imagepipe")], body: Array((refusal + "\n").utf8), close: true)
        }
        if path == "/health" {
            return draining.load(ordering: .acquiring)
                ? finish(503, [("Content-Type", "text/plain")], Array("draining\n".utf8), "-")
                : finish(200, [("Content-Type", "text/plain")], Array("ok\n".utf8), "-")
        }
        if path == "/metrics" {
            let text = metrics.text(gate: gate, pipeline: manager.statistics, workers: manager.host.coders.isolator.pool?.statistics)
            return finish(200, [("Content-Type", "text/plain; version=0.0.4")], Array(text.utf8), "-")
        }
        if draining.load(ordering: .acquiring) {
            return finish(503, [("Retry-After", "1"), ("Content-Type", "text/plain")], Array("shutting down\n".utf8), "-")
        }
        if path.hasPrefix("/info/") { return handleInfo(request, started: started, finish: finish) }
        let known: VerifiedRequests.Entry
        if let entry = verified.entry(for: path) {
            known = entry
        } else {
            // The signature first: an unsigned or mis-signed request learns nothing about the options or the sources.
            guard let signed = ProcessingURL.signedPart(of: path), signatureIsValid(signed.signature, signed.signedPath) else {
                return finish(403, Self.text, Array("bad signature\n".utf8), "-")
            }
            let parsed: ProcessingURL
            do {
                parsed = try ProcessingURL(path: path, maxSide: settings.maxSide, presets: settings.presets, watermark: settings.watermark)
            } catch let failure as ProcessingURL.Failure {
                return finish(failure.status, Self.text, Array((failure.message + "\n").utf8), "-")
            } catch {
                return finish(400, Self.text, Array("bad request\n".utf8), "-")
            }
            known = VerifiedRequests.Entry(parsed: parsed, source: settings.sources.plan(parsed.source))
            verified.store(known, for: path)
        }
        let parsed = known.parsed
        let source: String
        switch settings.sources.resolve(known.source) {
        case .allowed(let resolved): source = resolved
        case .refused(let status, let why): return finish(status, Self.text, Array((why + "\n").utf8), "-")
        }
        let format = negotiate(parsed, accept: request.header("Accept"))
        guard settings.formats.contains(format.name) || parsed.format != nil else {
            return finish(400, Self.text, Array("no output format\n".utf8), "-")
        }
        let ifNoneMatch = request.header("If-None-Match")
        var options = parsed.options
        options.limits = settings.limits
        let imageRequest = ImageRequest(url: source, options: options, loadOptions: settings.loadOptions, transformers: parsed.transformers)
        // q: wins, then the URL's fq: for this format, then --format-quality, else the encoder's default.
        let quality = parsed.quality ?? parsed.formatQualities[format.name] ?? settings.formatQualities[format.name]
        var encode = EncodeOptions(quality: quality)
        encode.background = parsed.background
        encode.maxBytes = parsed.maxBytes
        let keepMetadata = parsed.keepMetadata ?? settings.keepMetadata
        encode.keepMetadata = keepMetadata
        // The key holds the source's version, so it is computed once that version is fresh (after a revalidation).
        let outputKey: @Sendable () -> String = { [settings] in
            ImageCacheKey(imageRequest, filter: settings.sourceVersion).imageKey
                + "|out=\(format.name)|q=\(quality ?? 0)|bg=\(parsed.background.map { "\($0)" } ?? "-")"
                + (parsed.maxBytes.map { "|mb=\($0)" } ?? "")
                + (keepMetadata == .none ? "" : "|kmd=\(keepMetadata.rawValue)")
        }
        let needsRevalidation = Settings.isRemote(source) && !settings.versions.isFresh(source)

        let answer: @Sendable (OutputCache.Entry, String) -> Void = { [self] entry, tier in
            var headers: [(String, String)] = [("ETag", entry.etag), ("Cache-Control", "public, max-age=\(settings.cacheMaxAge)")]
            if format.negotiated { headers.append(("Vary", "Accept")) }
            // The body goes along only for its length: a 304's Content-Length must equal the 200's (RFC 9110 8.6).
            if Self.matches(ifNoneMatch, entry.etag) { return finish(304, headers, entry.body, tier) }
            finish(200, headers + [("Content-Type", entry.contentType)], entry.body, tier)
        }
        if !needsRevalidation,
           let hit = outputs.entry(for: Settings.isRemote(source) ? outputKey() : known.lastKey.key(source: source, format: format.name, compute: outputKey)) {
            metrics.hit("memory")
            return answer(hit, "memory")
        }
        guard gate.admit() else {
            metrics.rejectedAsBusy()
            return finish(503, [("Retry-After", "1")] + Self.text, Array("busy: every render slot and queue place is taken\n".utf8), "-")
        }
        let given = parsed.source
        Task {
            defer { self.gate.finish() }
            do {
                if needsRevalidation {
                    try await self.revalidate(imageRequest, arrived: started)
                    if let hit = self.outputs.entry(for: outputKey()) {
                        self.metrics.hit("memory")
                        return answer(hit, "memory")
                    }
                }
                let (entry, tier) = try await self.output(for: imageRequest, key: outputKey(), format: format.name, encode: encode, arrived: started)
                answer(entry, tier)
            } catch {
                let (status, message) = Self.status(for: error)
                finish(status, Self.text, Array((self.shown(message, source: source, given: given) + "\n").utf8), "render")
            }
        }
    }

    // MARK: Source versions

    /// Makes the source's version fresh (a conditional request, or a first fetch), within the request's deadline;
    /// fetched bytes are handed to the render through the originals tier, so it does not fetch them again.
    func revalidate(_ request: ImageRequest, arrived: Double) async throws {
        var options = settings.loadOptions
        if settings.limits.maxInputBytes > 0 { options.maxBytes = min(options.maxBytes ?? Int.max, settings.limits.maxInputBytes) }
        let remaining = max(0.001, settings.timeout - (Self.now() - arrived))
        let (versions, loaders, policy, fetchOptions) = (settings.versions, manager.host.loaders, manager.configuration.redirectPolicy, options)
        let outcome = try await Self.withDeadline(remaining) {
            try await versions.refresh(request.url, loaders: loaders, options: fetchOptions, redirectPolicy: policy)
        }
        metrics.revalidated(outcome)
        if case .fetched(_, let bytes) = outcome {
            try? await originals.store(bytes, for: ImageCacheKey(request, filter: settings.sourceVersion).dataKey)
        }
    }

    // MARK: Outputs

    /// The shared tiers, else one render shared by every identical request in flight.
    private func output(for request: ImageRequest, key: String, format: String, encode: EncodeOptions,
                        arrived: Double) async throws -> (OutputCache.Entry, String) {
        if let found = await sharedTiers?.value(for: "out|" + key), let entry = Self.entry(fromBlob: found.bytes) {
            metrics.hit(found.tier)
            outputs.store(entry, for: key)
            return (entry, found.tier)
        }
        metrics.miss()
        let task = flights.withLock { flights -> Task<OutputCache.Entry, Error> in
            if let running = flights[key] { return running }
            let task = Task { try await self.render(request, key: key, format: format, encode: encode, arrived: arrived) }
            flights[key] = task
            return task
        }
        defer { flights.withLock { if $0[key] == task { $0[key] = nil } } }
        return (try await task.value, "render")
    }

    /// A remote source is fetched before the render takes a slot (slots are for decoding and encoding: a slow
    /// origin must not hold one while other renders wait), then the render reads the fetched bytes. The deadline
    /// counts from the request's arrival, so time spent fetching and queued counts too.
    private func render(_ request: ImageRequest, key: String, format: String, encode: EncodeOptions, arrived: Double) async throws -> OutputCache.Entry {
        let remaining = max(0.001, settings.timeout - (Self.now() - arrived))
        let keys = ImageCacheKey(request, filter: settings.sourceVersion), dataKey = keys.dataKey
        // Not when the decoded image is in memory (another format of the same thumbnail): the render needs no bytes.
        let fetchFirst = Settings.isRemote(request.url)
            && manager.configuration.memoryCache?.image(for: keys.imageKey) == nil
        let body = try await Self.withDeadline(remaining) { [manager, gate, originals] in
            if fetchFirst { _ = try await manager.originalData(for: request) }
            guard await gate.enter() else { throw CancellationError() }
            defer {
                gate.leave()
                originals.release(dataKey)
            }
            return try await manager.encodedImage(for: request, format: format, options: encode)
        }
        metrics.rendered()
        let entry = OutputCache.Entry(body: body, contentType: Self.contentType(format), etag: Self.etag(body))
        outputs.store(entry, for: key)
        sharedTiers?.store(Self.blob(entry), for: "out|" + key)
        return entry
    }

    /// Runs `body`, or fails with `timedOut` after `seconds` (the render is cancelled: its coder polls).
    static func withDeadline<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw PipelineError.timedOut(after: seconds) }
            return value
        }
    }

    // MARK: HTTP details

    static let text: [(String, String)] = [("Content-Type", "text/plain; charset=utf-8")]

    /// Compared as text with the one canonical encoding (unpadded base64url, as imgproxy signs): a decoder that
    /// also took `=`, `+` for `-` or a last character with stray low bits would accept several spellings of one
    /// signature. Full length only (imgproxy allows truncated signatures; this service does not).
    func signatureIsValid(_ signature: String, _ signedPath: String) -> Bool {
        guard let key = settings.key else { return settings.unsigned }
        let expected = ProcessingURL.base64URLEncoded(HMACSHA256.authenticationCode(key: key, message: settings.salt + Array(signedPath.utf8)))
        return HMACSHA256.constantTimeEqual(Array(signature.utf8), Array(expected.utf8))
    }

    /// Requests this service refuses at the protocol level (400, connection closed): HTTP/1.1 without Host (RFC 9112
    /// section 3.2), both Content-Length and Transfer-Encoding (the request-smuggling shape, section 6.1), and
    /// targets that are not an origin-form path (absolute-form `GET http://...` is for proxies).
    static func protocolRefusal(version: String, path: String, header: (String) -> String?) -> String? {
        if version == "HTTP/1.1", header("Host") == nil { return "an HTTP/1.1 request needs a Host header" }
        if header("Transfer-Encoding") != nil, header("Content-Length") != nil {
            return "a request with both Content-Length and Transfer-Encoding is refused"
        }
        if !path.hasPrefix("/") { return "the request target must be a path (origin-form)" }
        return nil
    }

    /// An error message as the client may see it: the source as the client gave it, never the URL the service made
    /// of it (a versioned local source) nor a path of the server's.
    func shown(_ message: String, source: String, given: String) -> String {
        var text = message.replacing(source, with: given)
        if let root = settings.sources.rootedFiles?.rootPath { text = text.replacing(root, with: "") }
        return text
    }

    /// The format the URL names, else the best one the client accepts: AVIF, then WebP, else JPEG.
    private func negotiate(_ url: ProcessingURL, accept: String?) -> (name: String, negotiated: Bool) {
        if let format = url.format { return (format, false) }
        let accepted = Self.acceptedTypes(accept)
        let coders = manager.host.coders
        for (format, type) in [("avif", "image/avif"), ("webp", "image/webp")]
        where settings.formats.contains(format) && accepted.contains(type) && coders.canEncode(format: format) {
            return (format, true)
        }
        return ("jpg", true)
    }

    /// The media types an Accept header names with a quality above 0 (RFC 9110 section 12.5.1), lower-cased;
    /// wildcards are kept as written (`*/*` does not choose AVIF: a client that can show it says so).
    static func acceptedTypes(_ header: String?) -> Set<String> {
        var types = Set<String>()
        for range in (header ?? "").split(separator: ",") {
            let parts = range.split(separator: ";").map { String($0.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()).lowercased() }
            guard let type = parts.first, !type.isEmpty else { continue }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if quality > 0 { types.insert(type) }
        }
        return types
    }

    static func contentType(_ format: String) -> String { MediaType.name(for: format) }

    static func etag(_ body: [UInt8]) -> String {
        "\"" + SHA256.digest(body).prefix(12).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() + "\""
    }

    /// If-None-Match: a list of tags (weak ones compared weakly) or `*`.
    static func matches(_ header: String?, _ etag: String) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { (part: Substring) -> Bool in
            let tag = String(part.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }

    /// A failure as an HTTP status and a one-line body.
    static func status(for error: Error) -> (Int, String) {
        guard let error = error as? PipelineError else { return (500, "internal error") }
        let message = "\(error)".split(separator: "\n").first.map(String.init) ?? "error"
        switch error {
        case .loadingFailed(_, _, let status, _):
            switch status {
            // The service's policy at work, not an origin failure: the address policy (on every connection) or a
            // redirect hop outside --allow-source (refused before it is contacted). One answer for both, so a
            // refusal tells nothing about the target.
            case .refused: return (403, "the source, or a redirect it answered with, is refused by this service's policy")
            case .notFound: return (404, "source not found")
            case .limitExceeded: return (413, "the source is larger than this service accepts")
            default: return (502, "the source could not be loaded: \(message)")
            }
        case .unknownFormat: return (422, "the source is not an image this service decodes")
        case .decodingFailed(_, let status, _):
            return status == .limitExceeded ? (413, "over this service's limits: \(message)") : (422, "the source cannot be decoded: \(message)")
        case .pixelLimitExceeded, .memoryBudgetExceeded, .memoryLimitExceeded: return (413, "over this service's limits: \(message)")
        case .timedOut, .timedOutInProcess: return (504, "the render took too long")
        case .noEncoder: return (400, "no encoder for that format")
        case .noLoader: return (403, "no loader for that source")
        case .invalidArgument: return (400, message)
        case .cancelled: return (503, "cancelled")
        default: return (500, message)
        }
    }

    /// Encoded output in the shared tier: content type, ETag, body.
    static func blob(_ entry: OutputCache.Entry) -> [UInt8] {
        Array("\(entry.contentType)\n\(entry.etag)\n".utf8) + entry.body
    }

    static func entry(fromBlob blob: [UInt8]) -> OutputCache.Entry? {
        guard let first = blob.firstIndex(of: 10), let second = blob[(first + 1)...].firstIndex(of: 10) else { return nil }
        let type = String(decoding: blob[..<first], as: UTF8.self), tag = String(decoding: blob[(first + 1)..<second], as: UTF8.self)
        guard type.hasPrefix("image/") || type == "application/octet-stream", tag.hasPrefix("\"") else { return nil }
        return OutputCache.Entry(body: Array(blob[(second + 1)...]), contentType: type, etag: tag)
    }

    static func now() -> Double { ChildProcess.now() }

    /// One JSON line per request on standard error.
    private func log(client: String, method: String, path: String, status: Int, bytes: Int, seconds: Double, tier: String) {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        let shown = path.count > 300 ? String(path.prefix(300)) + "…" : path
        let millis = t.tv_nsec / 1_000_000
        let fraction = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        let ms = (seconds * 100_000).rounded() / 100
        // Every text field quoted and escaped: the method and path come from the client as they are.
        let shownMethod = method.count > 32 ? String(method.prefix(32)) + "…" : method
        let line = "{\"time\":\(t.tv_sec).\(fraction),\"client\":\(BatchReporter.quoted(client)),\"method\":\(BatchReporter.quoted(shownMethod)),"
            + "\"path\":\(BatchReporter.quoted(shown)),\"status\":\(status),\"bytes\":\(bytes),\"ms\":\(ms),\"tier\":\(BatchReporter.quoted(tier))}\n"
        logLock.withLock { _ in _ = line.withCString { write(2, $0, strlen($0)) } }
    }
}
