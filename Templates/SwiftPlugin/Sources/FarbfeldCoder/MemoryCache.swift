import PluginAPI
import PluginKit
import Synchronization

/// A second kind of component in the same plugin: a cache store, kept in this process's memory with a byte budget
/// (oldest entries leave first). It shows the shape of a cache plugin — a store type conforming to `CacheStore`,
/// `CacheTable.make` for its table — for a real one backed by a disk or a network service.
///
/// Configuration: empty for the defaults, or "max-bytes=N".
final class MemoryCache: CacheStore {
    private struct Contents {
        var entries: [String: [UInt8]] = [:]
        /// Keys, oldest first (a key stored again moves to the end).
        var order: [String] = []
        var bytes = 0
        var hits: UInt64 = 0
        var misses: UInt64 = 0
    }

    private let maxBytes: Int
    private let contents = Mutex(Contents())

    private init(maxBytes: Int) { self.maxBytes = maxBytes }

    static func open(configuration: String?) throws -> MemoryCache {
        guard let configuration, !configuration.isEmpty else { return MemoryCache(maxBytes: 64 << 20) }
        guard configuration.hasPrefix("max-bytes="), let value = Int(configuration.dropFirst("max-bytes=".count)), value > 0 else {
            throw PluginFailure.unsupported("unknown configuration '\(configuration)' (expected max-bytes=N)")
        }
        return MemoryCache(maxBytes: value)
    }

    func value(for key: String) throws -> [UInt8]? {
        contents.withLock { contents in
            guard let value = contents.entries[key] else { contents.misses += 1; return nil }
            contents.hits += 1
            return value
        }
    }

    func store(_ value: UnsafeBufferPointer<UInt8>, for key: String) throws {
        guard value.count <= maxBytes else { return }  // larger than the whole budget: not kept, not an error
        let copy = Array(value)
        contents.withLock { contents in
            if let old = contents.entries.removeValue(forKey: key) {
                contents.bytes -= old.count
                contents.order.removeAll { $0 == key }
            }
            while contents.bytes + copy.count > maxBytes, !contents.order.isEmpty {
                let oldest = contents.order.removeFirst()
                contents.bytes -= contents.entries.removeValue(forKey: oldest)?.count ?? 0
            }
            contents.entries[key] = copy
            contents.order.append(key)
            contents.bytes += copy.count
        }
    }

    func remove(_ key: String) throws {
        contents.withLock { contents in
            guard let old = contents.entries.removeValue(forKey: key) else { return }
            contents.bytes -= old.count
            contents.order.removeAll { $0 == key }
        }
    }

    func removeAll() throws {
        contents.withLock { contents in
            contents.entries = [:]
            contents.order = []
            contents.bytes = 0
        }
    }

    func statistics() -> ip_cache_stats? {
        contents.withLock { contents in
            ip_cache_stats(struct_size: UInt32(MemoryLayout<ip_cache_stats>.size), entry_count: UInt64(contents.entries.count),
                           total_bytes: UInt64(contents.bytes), hits: contents.hits, misses: contents.misses)
        }
    }
}
