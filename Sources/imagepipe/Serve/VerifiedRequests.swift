import Synchronization

/// Processing URLs whose signature was checked and whose options and source were parsed, by their exact path.
///
/// Why: a cache hit was mostly paperwork — the HMAC, the option parser and the source's normalisation took about
/// a third of the service's CPU per cached request (perf, Benchmarks/serve's cached run) — and all three depend
/// on the path alone once the service has started (keys, presets, limits and allowed sources are fixed then). So a
/// path seen before skips them; what can change between two requests for it is still done every time: the local
/// file's identity (`SourcePolicy.resolve(_:)`), the Accept negotiation, the output cache. Only verified paths get
/// in, so a forger cannot fill it; `RecentlyUsed` bounds it to two generations of `capacity` entries.
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

    private let entries: RecentlyUsed<Entry>
    var capacity: Int { entries.capacity }

    init(capacity: Int = 2048) { entries = RecentlyUsed(capacity: capacity) }

    func entry(for path: String) -> Entry? { entries.value(for: path) }

    func store(_ entry: Entry, for path: String) { entries.store(entry, for: path) }

    var count: Int { entries.count }
}
