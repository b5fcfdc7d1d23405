import Synchronization

/// A map for the service's per-request memos, bounded without bookkeeping on the hot path: two generations of
/// `capacity` entries. A key used in the current or the previous generation stays (a hit in the previous one
/// moves it forward); the rest go when the current generation is full. A look-up is one dictionary probe under
/// a lock, with no list to reorder as an LRU would need.
final class RecentlyUsed<Value: Sendable>: Sendable {
    private struct Generations {
        var current: [String: Value] = [:]
        var previous: [String: Value] = [:]
    }
    private let generations = Mutex(Generations())
    let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    func value(for key: String) -> Value? {
        generations.withLock { g in
            if let hit = g.current[key] { return hit }
            guard let old = g.previous[key] else { return nil }
            Self.insert(old, for: key, into: &g, capacity: capacity)
            return old
        }
    }

    func store(_ value: Value, for key: String) {
        generations.withLock { Self.insert(value, for: key, into: &$0, capacity: capacity) }
    }

    var count: Int { generations.withLock { $0.current.count + $0.previous.count } }

    private static func insert(_ value: Value, for key: String, into g: inout Generations, capacity: Int) {
        if g.current.count >= capacity {
            g.previous = g.current
            g.current = [:]
        }
        g.current[key] = value
    }
}
