import PipelineHost
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What the service knows of each http(s) source it fetched: a version (a digest of the bytes), the origin's
/// validators, and until when the version is fresh.
///
/// Why: the version is part of every cache key of the source's results (decoded, output, shared tier, failed list),
/// so an unchanged source keeps its renders across revalidations, and a changed one gets new keys in every tier at
/// once, a new size included. Once fresh time is over, the next request revalidates: a conditional request with the
/// origin's ETag (If-None-Match) or Last-Modified (If-Modified-Since); a 304, or a 200 with the same bytes, keeps the
/// version. Freshness is `--source-ttl`, shortened (never lengthened) by the origin's Cache-Control (`s-maxage`,
/// `max-age`, minus `Age`; `no-cache`/`no-store` revalidate every request). The digest, not the ETag, is the version,
/// so every instance behind a load balancer keys the same bytes the same way (the shared tier lines up) whatever
/// ETags their origins' mirrors invent.
final class RemoteSourceVersions: Sendable {
    struct Entry: Sendable {
        var version: String
        var etag: String?
        var lastModified: String?
        var freshUntil: Double
    }

    /// What a refresh learned.
    enum Outcome: Sendable, Equatable {
        /// The origin answered 304: the version stands.
        case notModified
        /// New bytes: their version, which may equal the old one (an origin without validators).
        case fetched(version: String, bytes: [UInt8])
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Insertion order, for dropping the oldest beyond `capacity`.
        var order: [String] = []
        var flights: [String: Task<Outcome, Error>] = [:]
        var failures: [String: (error: PipelineError, until: Double)] = [:]
    }

    private let state = Mutex(State())
    let maxLifetime: Double
    let failureLifetime: Double
    let capacity: Int

    init(maxLifetime: Double, failureLifetime: Double, capacity: Int = 100_000) {
        self.maxLifetime = max(0, maxLifetime)
        self.failureLifetime = max(0, failureLifetime)
        self.capacity = max(1, capacity)
    }

    /// The version to key `url` by: known (fresh or not; a stale one is refreshed before it is used), or "new".
    func version(of url: String) -> String { state.withLock { $0.entries[url]?.version } ?? "new" }

    /// Whether `url` may be served by its known version without asking the origin.
    func isFresh(_ url: String, now: Double = RemoteSourceVersions.now()) -> Bool {
        state.withLock { $0.entries[url].map { now < $0.freshUntil } ?? false }
    }

    /// Revalidates or fetches `url` (one request in flight per URL: concurrent callers share it), then records what
    /// it learned. A failure is remembered for `failureLifetime` seconds and answered again without asking.
    func refresh(_ url: String, loaders: LoadersManager, options: LoadOptions,
                 redirectPolicy: (@Sendable (Int, String) -> Bool)?) async throws -> Outcome {
        let task = try state.withLock { s -> Task<Outcome, Error> in
            if let failure = s.failures[url] {
                if Self.now() < failure.until { throw failure.error }
                s.failures[url] = nil
            }
            if let running = s.flights[url] { return running }
            let known = s.entries[url]
            let task = Task { try await self.ask(url, known: known, loaders: loaders, options: options, redirectPolicy: redirectPolicy) }
            s.flights[url] = task
            return task
        }
        return try await task.value
    }

    private func ask(_ url: String, known: Entry?, loaders: LoadersManager, options: LoadOptions,
                     redirectPolicy: (@Sendable (Int, String) -> Bool)?) async throws -> Outcome {
        defer { state.withLock { _ = $0.flights.removeValue(forKey: url) } }
        var options = options
        if let etag = known?.etag { options.headers.append("If-None-Match: \(etag)") }
        if let lastModified = known?.lastModified { options.headers.append("If-Modified-Since: \(lastModified)") }
        let seen = Mutex<LoadResponse?>(nil)
        let conditional = known != nil
        let hooks = LoadHooks(validateResponse: { response in
            seen.withLock { $0 = response }
            if conditional && response.statusCode == 304 { return }
            try LoadHooks.acceptSuccess(response)
        }, approveRedirect: redirectPolicy)
        let started = Self.now()
        let bytes: [UInt8]
        do {
            bytes = try await loaders.load(url: url, options: options, hooks: hooks)
        } catch let error as PipelineError {
            if case .cancelled = error { throw error }
            state.withLock { $0.failures[url] = (error, Self.now() + failureLifetime) }
            throw error
        }
        let response = seen.withLock { $0 }
        let lifetime = Self.freshness(of: response, limit: maxLifetime)
        if conditional, response?.statusCode == 304, let known {
            record(url, Entry(version: known.version, etag: response?.header("ETag") ?? known.etag,
                              lastModified: response?.header("Last-Modified") ?? known.lastModified, freshUntil: started + lifetime))
            return .notModified
        }
        let hexDigits = Array("0123456789abcdef")
        let version = String(SHA256.digest(bytes).prefix(12).flatMap { [hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 15)]] })
        record(url, Entry(version: version, etag: response?.header("ETag"), lastModified: response?.header("Last-Modified"),
                          freshUntil: started + lifetime))
        return .fetched(version: version, bytes: bytes)
    }

    private func record(_ url: String, _ entry: Entry) {
        state.withLock { s in
            if s.entries.updateValue(entry, forKey: url) == nil { s.order.append(url) }
            if s.order.count > capacity {
                let dropped = s.order.count - capacity
                for old in s.order.prefix(dropped) { s.entries[old] = nil }
                s.order.removeFirst(dropped)
            }
        }
    }

    /// Seconds a response stays fresh: `limit`, or less when the origin says so (RFC 9111 §5.2.2: s-maxage over
    /// max-age, minus Age; no-cache and no-store mean revalidate every time).
    static func freshness(of response: LoadResponse?, limit: Double) -> Double {
        guard let control = response?.header("Cache-Control")?.lowercased() else { return limit }
        var maxAge: Double?, sharedMaxAge: Double?
        func trimmed(_ text: Substring) -> Substring {
            let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\"" }
            return text.drop(while: blank).reversed().drop(while: blank).reversed().reduce(into: Substring()) { $0.append($1) }
        }
        for directive in control.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map(trimmed)
            switch parts.first {
            case "no-cache", "no-store": return 0
            case "max-age": maxAge = parts.count > 1 ? Double(String(parts[1])) : nil
            case "s-maxage": sharedMaxAge = parts.count > 1 ? Double(String(parts[1])) : nil
            default: continue
            }
        }
        guard let origin = sharedMaxAge ?? maxAge else { return limit }
        let age = response?.header("Age").flatMap { Double($0) } ?? 0
        return max(0, min(limit, origin - age))
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

