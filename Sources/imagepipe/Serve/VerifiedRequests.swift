import Synchronization

/// Processing URLs whose signature was checked and whose options and source were parsed, by their exact path.
///
/// Why: a cache hit was mostly paperwork — the HMAC, the option parser and the source's normalisation took about
/// a third of the service's CPU per cached request (perf, Benchmarks/serve's cached run) — and all three depend
/// on the path alone once the service has started (keys, presets, limits and allowed sources are fixed then). So a
/// path seen before skips them; what can change between two requests for it is still done every time: the local
/// file's identity (`SourcePolicy.resolve(_:)`), the Accept negotiation, the output cache. Only verified paths get
/// in, so a forger cannot fill it; two generations of `capacity` entries bound it (a path used in the current or
/// the previous generation stays, the rest go when the current one is full).
final class VerifiedRequests: Sendable {
    struct Entry: Sendable {
        let parsed: ProcessingURL
        let source: SourcePolicy.Plan
        /// The output key last computed for this path.
        let lastKey = OutputKeyMemo()
    }

    /// The output key of a path depends on nothing but the path, the negotiated format and the source as the
    /// cache keys see it; for a local source that is its versioned URL (file identity included), so the key last
    /// computed for the same (source, format) is the key. Remote sources are never memoised here: their key holds
    /// a version that revalidation replaces (`Settings.sourceVersion`).
    final class OutputKeyMemo: Sendable {
        private let last = Mutex<(source: String, format: String, key: String)?>(nil)

        func key(source: String, format: String, compute: () -> String) -> String {
            if let hit = last.withLock({ $0 }), hit.source == source, hit.format == format { return hit.key }
            let key = compute()
            last.withLock { $0 = (source, format, key) }
            return key
        }
    }

    private struct Generations {
        var current: [String: Entry] = [:]
        var previous: [String: Entry] = [:]
    }

    private let generations = Mutex(Generations())
    let capacity: Int

    init(capacity: Int = 2048) { self.capacity = max(1, capacity) }

    func entry(for path: String) -> Entry? {
        generations.withLock { g in
            if let hit = g.current[path] { return hit }
            guard let old = g.previous[path] else { return nil }
            Self.insert(old, for: path, into: &g, capacity: capacity)
            return old
        }
    }

    func store(_ entry: Entry, for path: String) {
        generations.withLock { Self.insert(entry, for: path, into: &$0, capacity: capacity) }
    }

    var count: Int { generations.withLock { $0.current.count + $0.previous.count } }

    private static func insert(_ entry: Entry, for path: String, into g: inout Generations, capacity: Int) {
        if g.current.count >= capacity {
            g.previous = g.current
            g.current = [:]
        }
        g.current[path] = entry
    }
}
