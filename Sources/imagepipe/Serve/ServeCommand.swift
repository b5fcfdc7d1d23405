import Dispatch
import PipelineHost
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `imagepipe serve`: signed thumbnail URLs over HTTP (imgproxy's URL scheme), several instances sharing one
/// Redis tier through the cache plugin.
enum ServeCommand: Command {
    static let name = "serve"
    static let summary = "answer signed thumbnail URLs over HTTP (shared tiers: Redis with --redis, S3 with --result-store)"
    static let header = """
        Usage: imagepipe serve [--listen 127.0.0.1:8080] (--key[-file] ... --salt[-file] ... | --allow-unsigned)
                               [--allow-source PREFIX]... [--root DIR] [--redis CONFIG] [--result-store S3URL] [options]

        URLs (imgproxy's scheme):
          /<signature>/rs:fit:256:256/g:top/q:80/plain/<percent-encoded source>@webp
          /<signature>/s:256:0/<base64url source>.jpg
        Options: rs:MODE:W:H (fit, fill, aspect-fill)  s:W:H  w:W  h:H  g:GRAVITY (ce no so ea we noea nowe soea sowe,
          or top, top-left ...)  c:W:H (crop a box)  ar:W:H (crop an aspect ratio)  pg:N  fr:N  tint:RRGGBB  tmpl
          up (upscale)  q:N  bg:RRGGBB  f:FORMAT  bl:SIGMA  sh  rot:90|180|270  fl:h|v|both  gray  r:RADIUS  circle
          flat (onto bg)
        signature = base64url(HMAC-SHA256(key, salt + "/rs:fit:256:256/...")); --allow-unsigned accepts any.
        A source is an http(s) or s3:// URL under an --allow-source prefix, or local:///path (or /path) inside --root.
        Without a format (no @ext, .ext or f:), the best one the client's Accept allows: AVIF, WebP, else JPEG
        (answered with Vary: Accept). Also: GET /health, GET /metrics (Prometheus text).
        Redirects from an origin are followed (at most --max-redirects, default 5) only while every hop is under an
        --allow-source prefix and at a public address; a hop that is not is refused before it is contacted (403).
        Without a size, the output is bounded by --max-size.
        """

    static let sections: [OptionSection] = [
        OptionSection(nil, column: 28, [
            .option(Option("listen", value: "ADDR:PORT", default: "127.0.0.1:8080", help: "where to listen (default {default}; port 0 = any free port, printed)")),
            .shared([Option("key", value: "HEX", help: ""), Option("salt", value: "HEX", help: "")], "the signing key and salt (hex; or IMAGEPIPE_KEY, IMAGEPIPE_SALT)"),
            .shared([Option("key-file", value: "FILE", help: ""), Option("salt-file", value: "FILE", help: "")], """
                    the same read from a file (hex, surrounding white space ignored):
                    a value on the command line is visible to every user through ps
                    """),
            .option(Option("allow-unsigned", help: "accept URLs without a valid signature (development only)")),
            .option(Option("allow-source", value: "PREFIX", help: """
                    remote sources allowed under this URL prefix (repeatable; none by default):
                    http(s)://host/path/ or s3://bucket/prefix/ (the S3 loader's credentials,
                    region and endpoint come from AWS_* variables, ~/.aws or --loader-option s3:KEY=V)
                    """)),
            .option(Option("root", value: "DIR", help: "local sources are read from this folder only (no path leaves it)")),
            .option(Option("allow-private-addresses", help: "fetch from loopback/private addresses too (off: only public ones)")),
            .option(Option("max-size", value: "N", default: "4096", help: "largest output side in a URL (default {default})")),
            .shared([Option("max-pixels", value: "N", help: ""), Option("max-memory", value: "SIZE", help: ""), Option("max-input", value: "SIZE", help: "")], "per-request limits (defaults 268M, 2G, 64M)"),
            .option(Option("timeout", value: "SECONDS", default: "30", help: """
                    per-request deadline, counted from the request's arrival (default {default}): 504
                    after it
                    """)),
            .option(Option("concurrency", value: "N", help: """
                    renders at once (default: one per core); --queue N more requests in progress
                    (fetching a remote source, which takes no render slot, or waiting for one;
                    default 64), beyond that 503 with Retry-After
                    """)),
            .option(Option("queue", value: "N", default: "64", help: "requests in progress beyond --concurrency before 503 (default {default})")),
            .option(Option("threads", value: "N", help: "HTTP threads (default: one per core)")),
            .option(Option("connections", value: "N", default: "10000", help: "connections at once, all clients (default {default})")),
            .option(Option("per-client-connections", value: "N", default: "64", help: """
                    connections at once from one client address (default {default}): one client
                    holding connections open (slowloris) cannot take every slot
                    """)),
            .option(Option("idle-timeout", value: "SECONDS", default: "15", help: "close a connection with no traffic for this long (default {default})")),
            .option(Option("header-timeout", value: "SECONDS", default: "10", help: """
                    a request's whole head (request line and headers) must arrive within this
                    long of connecting (default {default}), or of the previous answer on a kept-alive
                    connection (the longer of this and --idle-timeout); else the connection is
                    closed: a client sending a byte a second cannot hold it
                    """)),
            .option(Option("reuse-port", help: """
                    share the port with other processes that ask for it (SO_REUSEPORT); without
                    it a port in use is an error
                    """)),
            .option(Option("source-ttl", value: "SECONDS", default: "600", help: """
                    how long an http(s) source is used without asking its origin again (default
                    {default}; the origin's Cache-Control may shorten it); then a conditional request
                    (ETag, Last-Modified) keeps its results when it is unchanged. A local source is
                    re-checked on every request (its size, times and inode are part of every key)
                    """)),
            .option(Option("failed-ttl", value: "SECONDS", default: "10", help: "how long a failed source is answered from memory (default {default})")),
            .option(Option("max-age", value: "SECONDS", default: "3600", help: "Cache-Control max-age (default {default})")),
            .option(Option("output-cache", value: "SIZE", help: "encoded outputs kept in memory (default 256M)")),
            .option(Option("redis", value: "CONFIG", help: """
                    the shared tier: "redis://HOST:PORT/DB ttl=S max-entry=BYTES timeout-ms=MS ns=NAME"
                    (the RedisCache plugin); Redis down = rendered anyway, logged once
                    """)),
            .option(Option("result-store", value: "S3URL", help: """
                    a durable tier behind --redis: "s3://BUCKET/PREFIX ttl=S max-entry=BYTES timeout-ms=MS"
                    (the S3Cache plugin; credentials and endpoint as for s3:// sources); keys hold no
                    URL signature; the store down = rendered anyway, logged once
                    """)),
            .option(Option("formats", value: "LIST", default: "avif,webp,jpg,png", help: """
                    the formats a URL that names none is answered in (default {default}):
                    AVIF or WebP when listed and the client's Accept allows, else JPEG (without jpg
                    such a URL is 400); a URL that names its format is not limited by this
                    """)),
            .option(Option("cache-dir", value: "DIR", help: "a disk cache for originals (default: none)")),
            .option(Option("access-log", value: "on|off", default: "on", help: "one JSON line per request on standard error (default {default})")),
            .option(Option("shutdown-grace", value: "SECONDS", default: "30", help: """
                    on SIGTERM, stop accepting and finish in-flight requests for at most this long
                    (default {default})
                    """)),
            .option(Option("preset", value: "NAME=OPTIONS", help: """
                    a preset for pr:NAME in URLs, OPTIONS as in a URL (rs:fill:256:256/q:80); repeatable;
                    'default' applies to every request, before its own options
                    """)),
            .option(Option("presets", value: "FILE", help: "presets from a file, one NAME=OPTIONS per line (# comments)")),
            .option(Option("keep-metadata", value: "none|copyright|all", help: "what outputs keep of their sources' Exif and XMP when a URL's kmd: does not say (default none)")),
            .option(Option("format-quality", value: "FMT=Q,...", help: "default quality per output format (avif=50,webp=75,jpeg=80); q: and fq: in a URL win")),
            .option(Option("watermark", value: "FILE", help: """
                    the image wm: draws (PNG, WebP ... or SVG, rendered at the size each result needs);
                    without it wm: is 400
                    """)),
            .option(Option("only-presets", help: "URLs may name presets only (bare names or pr:): any other option is 400")),
            .option(Option("malloc-trim", value: "SECONDS|off", default: "off", help: """
                    hand malloc's idle pages back to the kernel this often: a lower mean RSS, but one
                    that swings with the period (default {default}: malloc keeps what the request mix
                    reuses, so the RSS stays flat at its working set)
                    """)),
        ]),
        IsolationSetup.section,
        PipelineSetup.globalSection,
    ]

    static let help = header + "\n\n" + sections.text

    static func run(_ arguments: [String]) async throws {
        // Before the first request allocates (see MallocTuning): keeps the RSS of a long run flat at its working set.
        MallocTuning.applyForService()
        let args = try Arguments(arguments, sections: sections)
        guard args.positionals.isEmpty else { throw UsageError("serve takes no operands, got \(args.positionals.joined(separator: " "))") }
        let (address, port) = try listenAddress(args.value("listen")!)
        let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let concurrency = try args.int("concurrency", range: 1...1024) ?? cores

        var settings = ServeHandler.Settings(sources: try SourcePolicy(allowedPrefixes: args.all("allow-source"), root: try root(args)))
        settings.key = try SigningSecrets.read("key", args, environment: "IMAGEPIPE_KEY")
        settings.salt = try SigningSecrets.read("salt", args, environment: "IMAGEPIPE_SALT") ?? []
        settings.unsigned = args.flag("allow-unsigned")
        guard settings.key != nil || settings.unsigned else {
            throw UsageError("serve needs --key HEX or --key-file FILE (and a salt) to check signed URLs, or --allow-unsigned for development")
        }
        settings.maxSide = try args.int("max-size", range: 1...65535)!
        if let pixels = try args.int("max-pixels", range: 1...Int(Int32.max) * 64) { settings.limits.maxPixels = pixels }
        if let memory = try DecodeArguments.memorySize(args) { settings.limits.maxMemoryBytes = memory }
        settings.limits.maxInputBytes = 64 << 20
        if let text = args.value("max-input") {
            guard let bytes = DecodeArguments.byteSize(text) else { throw UsageError("--max-input must be a size such as 64M, not '\(text)'") }
            settings.limits.maxInputBytes = bytes
        }
        settings.timeout = try args.seconds("timeout")!
        settings.loadOptions = try LoadArguments.loadOptions(args)
        settings.loadOptions.refusePrivateAddresses = !args.flag("allow-private-addresses")
        // Every hop is vetted before it is followed (`redirectPolicy` below, through the loader's ABI 1.1 redirect
        // callback; a loader that cannot ask follows none), so a redirect never leaves --allow-source.
        settings.loadOptions.maxRedirects = settings.loadOptions.maxRedirects ?? 5
        // The request's deadline (from its arrival) is the one clock: the loader's own timeouts are set past it, so a
        // slow origin is always the deadline's 504, never a loader timeout's 502 by chance.
        settings.loadOptions.timeout = settings.timeout + 2
        settings.loadOptions.connectTimeout = settings.timeout + 2
        settings.loadOptions.firstByteTimeout = settings.timeout + 2
        let failedLifetime = try args.seconds("failed-ttl")!
        settings.versions = RemoteSourceVersions(maxLifetime: try args.seconds("source-ttl")!, failureLifetime: failedLifetime)
        settings.cacheMaxAge = try args.int("max-age", range: 0...Int(Int32.max))!
        settings.accessLog = args.value("access-log")! != "off"
        settings.formats = args.value("formats")!.split(separator: ",").map { String($0).lowercased() }
        if let policy = try EncodeArguments.keepMetadata(args) { settings.keepMetadata = policy }
        for pair in (args.value("format-quality") ?? "").split(separator: ",") {
            let parts = pair.split(separator: "=").map(String.init)
            guard parts.count == 2, let quality = Int(parts[1]), (1...100).contains(quality), !parts[0].isEmpty else {
                throw UsageError("--format-quality takes FORMAT=QUALITY pairs (1...100) separated by commas, e.g. avif=50,webp=75, not '\(pair)'")
            }
            settings.formatQualities[ProcessingURL.formatName(parts[0])] = quality
        }
        let grace = try args.seconds("shutdown-grace")!
        let trimInterval = args.value("malloc-trim") == "off" ? 0 : try args.seconds("malloc-trim")!

        let host = try PipelineSetup.host(args)
        try IsolationSetup.configure(args, host: host, workers: concurrency)
        // The watermark comes from configuration only (a URL can say where and how strongly, never which image).
        settings.watermark = try args.value("watermark").map { try ProcessingArguments.watermark(file: $0, coders: host.coders) }
        settings.presets = try Presets(definitions: args.all("preset"), file: args.value("presets"), watermark: settings.watermark)
        settings.presets.onlyPresets = args.flag("only-presets")
        if settings.presets.onlyPresets && settings.presets.isEmpty {
            throw UsageError("--only-presets needs presets (--preset NAME=OPTIONS or --presets FILE)")
        }
        // Decoded results in memory are a small tier here (the output cache holds what is served again); 64 MiB
        // keeps a burst of different formats of one thumbnail from decoding twice without doubling the footprint.
        var configuration = ImageManagerConfiguration(memoryCache: MemoryCache(limits: .init(maxBytes: 64 << 20)), decodingWidth: concurrency)
        // Short: a source fixed at its origin is served again within seconds (a local one at once: its key changes).
        configuration.failedURLLifetime = failedLifetime
        if let rooted = settings.sources.rootedFiles { configuration.sourceLoader = rooted }
        let sourcePolicy = settings.sources
        configuration.redirectPolicy = { _, target in sourcePolicy.allowsRedirect(to: target) }
        configuration.keyFilter = settings.sourceVersion
        // Originals fetched before their render takes a slot are handed over here (in front of --cache-dir's disk).
        let originals = FetchedOriginals(capacity: 256 << 20, next: try args.value("cache-dir").map { try DiskCache(directory: $0) })
        configuration.dataCache = originals
        let manager = ImageManager(host: host, configuration: configuration)
        let shared = try sharedTiers(args, host: host)
        let outputBytes = try args.value("output-cache").map {
            guard let bytes = DecodeArguments.byteSize($0) else { throw UsageError("--output-cache must be a size such as 256M, not '\($0)'") }
            return bytes
        } ?? 256 << 20
        let handler = ServeHandler(settings: settings, manager: manager, sharedTiers: shared, outputs: OutputCache(capacity: outputBytes),
                                   originals: originals,
                                   gate: RenderGate(limit: concurrency, queueLimit: try args.int("queue", range: 0...100_000)!))
        var limits = HTTPServer.Limits()
        limits.threads = try args.int("threads", range: 1...256) ?? cores
        limits.connections = try args.int("connections", range: 1...1_000_000)!
        limits.perClient = try args.int("per-client-connections", range: 1...1_000_000)!
        limits.idleTimeout = try args.int("idle-timeout", range: 1...86_400)!
        limits.headerTimeout = try args.int("header-timeout", range: 1...86_400)!
        limits.reusePort = args.flag("reuse-port")
        let server = try HTTPServer(address: address, port: port, limits: limits) { handler.handle($0) }
        MallocTuning.trimPeriodically(every: trimInterval)
        handler.metrics.overdueHeads.withLock { $0 = { server.overdueHeads } }
        // Written straight to the descriptor: a script (or a test) waits for this line to learn the port.
        let ready = "imagepipe serve: listening on http://\(address):\(server.port)\n"
        _ = ready.withCString { write(1, $0, strlen($0)) }

        // SIGTERM/SIGINT: stop accepting, answer what is in flight (new requests on open connections get 503 and
        // Connection: close), then stop.
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        let sources = [SIGTERM, SIGINT].map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let once = Atomic<Bool>(false)
            for source in sources {
                source.setEventHandler {
                    guard !once.exchange(true, ordering: .acquiringAndReleasing) else { return }
                    handler.startDraining()
                    server.quiesce()
                    let deadline = ServeHandler.now() + grace
                    // Until every answer is on the wire, not merely handed to the server: stopping the daemon between the
                    // two closed a connection whose response was queued but not yet sent.
                    while server.activeRequests > 0, ServeHandler.now() < deadline { usleep(10_000) }
                    let open = server.activeRequests
                    if open > 0 {
                        // libmicrohttpd aborts the process when stopped with a suspended connection: what still waits
                        // for its render is answered now (503, connection closed) and given a moment to be sent.
                        server.answerWaiting(503, headers: [("Retry-After", "1"), ("Server", "imagepipe")] + ServeHandler.text,
                                             body: Array("shutting down\n".utf8))
                        let sent = ServeHandler.now() + 2
                        while server.activeRequests > 0, ServeHandler.now() < sent { usleep(10_000) }
                    }
                    server.stop()
                    Output.error("imagepipe serve: stopped (\(open) request(s) still open at the end of the grace period)")
                    done.resume()
                }
                source.resume()
            }
        }
        withExtendedLifetime(sources) {}
        IsolationSetup.endWorkers()
    }

    static func listenAddress(_ text: String) throws -> (String, UInt16) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            throw UsageError("--listen must be ADDRESS:PORT such as 127.0.0.1:8080, not '\(text)'")
        }
        return (String(text[..<colon]), port)
    }

    static func root(_ args: Arguments) throws -> String? {
        guard let folder = args.value("root") else { return nil }
        guard let real = realpath(folder, nil) else { throw UsageError("--root \(folder) does not exist") }
        defer { free(real) }
        return String(cString: real)
    }

    /// The Redis tier (--redis) and the S3 result store (--result-store), in that order.
    static func sharedTiers(_ args: Arguments, host: PluginHost) throws -> SharedTiers? {
        var tiers: [SharedTiers.Tier] = []
        if let configuration = args.value("redis") {
            tiers.append(.init(label: "shared", cache: try openCache("org.imagepipe.cache.redis/", plugin: "RedisCache", option: "redis",
                                                                  configuration: configuration, shown: configuration, host: host)))
        }
        if let store = args.value("result-store") {
            tiers.append(.init(label: "durable", cache: try openCache("org.imagepipe.cache.s3/", plugin: "S3Cache", option: "result-store",
                                                                   configuration: try resultStoreConfiguration(store, args), shown: store, host: host)))
        }
        return SharedTiers(tiers)
    }

    /// "s3://BUCKET/PREFIX [ttl=S] [max-entry=BYTES] [timeout-ms=MS]", followed by the S3 client's lines as the
    /// S3 loader gets them (credentials, region and endpoint found as AWS tools find them, --loader-option s3:…),
    /// so the loader and the result store reach the same store the same way.
    static func resultStoreConfiguration(_ store: String, _ args: Arguments) throws -> String {
        guard store.lowercased().hasPrefix("s3://") else {
            throw UsageError("--result-store takes s3://BUCKET/PREFIX (and ttl=, max-entry=, timeout-ms=), not '\(store)'")
        }
        let client = try PipelineSetup.loaderConfigurations(args)["s3"] ?? ""
        return client.isEmpty ? store : store + "\n" + client
    }

    private static func openCache(_ idPrefix: String, plugin name: String, option: String, configuration: String, shown: String,
                                  host: PluginHost) throws -> any DataCaching {
        guard let plugin = host.caches.pluginCaches.first(where: { $0.descriptor.id.hasPrefix(idPrefix) }) else {
            throw CLIError("--\(option) needs the \(name) plugin (lib\(name).so), which is not on the plugin search path")
        }
        do {
            return try plugin.open(configuration: configuration)
        } catch {
            throw CLIError("--\(option) \(shown): \(error)")
        }
    }
}
