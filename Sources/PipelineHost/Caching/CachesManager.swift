/// Combines several data caches (the disk cache, cache plugins) under one query and one store policy, as
/// SDWebImage's caches manager does. It is itself a `DataCaching`, so it can stand wherever one cache can.
///
/// The caches are ordered from highest (first, usually the fastest, e.g. the local disk) to lowest (last,
/// usually shared, e.g. Redis).
public final class CachesManager: DataCaching {
    public enum Policy: String, Sendable, CaseIterable {
        /// Query: ask each cache in order until one hits. Store: store into each in order.
        case serial
        /// Query: ask all at once, take the highest cache that hits. Store: store into all at once.
        case concurrent
        /// Only the first cache.
        case highestOnly = "highest-only"
        /// Only the last cache.
        case lowestOnly = "lowest-only"
    }

    /// The cache plugins that loaded (not yet opened: opening needs a configuration).
    public let pluginCaches: [PluginCache]
    public let caches: [any DataCaching]
    public let queryPolicy: Policy
    public let storePolicy: Policy
    public var name: String { "caches manager" }

    public init(caches: [any DataCaching] = [], pluginCaches: [PluginCache] = [], queryPolicy: Policy = .serial, storePolicy: Policy = .concurrent) {
        self.caches = caches
        self.pluginCaches = pluginCaches
        self.queryPolicy = queryPolicy
        self.storePolicy = storePolicy
    }

    private func selected(_ policy: Policy) -> [any DataCaching] {
        switch policy {
        case .serial, .concurrent: caches
        case .highestOnly: Array(caches.prefix(1))
        case .lowestOnly: Array(caches.suffix(1))
        }
    }

    /// The first hit by the query policy. A failing cache counts as a miss (a cache must never fail a request)
    /// and is logged.
    public func data(for key: String) async throws -> [UInt8]? {
        let targets = selected(queryPolicy)
        if queryPolicy == .concurrent {
            return await withTaskGroup(of: (Int, [UInt8]?).self) { group in
                for (index, cache) in targets.enumerated() {
                    group.addTask { (index, await Self.quietly(cache) { try await cache.data(for: key) } ?? nil) }
                }
                var results: [Int: [UInt8]] = [:]
                for await (index, value) in group { if let value { results[index] = value } }
                return results.keys.min().flatMap { results[$0] }
            }
        }
        for cache in targets {
            if let value = await Self.quietly(cache, { try await cache.data(for: key) }) ?? nil { return value }
        }
        return nil
    }

    public func store(_ data: [UInt8], for key: String) async throws {
        let targets = selected(storePolicy)
        if storePolicy == .concurrent {
            await withTaskGroup(of: Void.self) { group in
                for cache in targets { group.addTask { _ = await Self.quietly(cache) { try await cache.store(data, for: key) } } }
            }
        } else {
            for cache in targets { _ = await Self.quietly(cache) { try await cache.store(data, for: key) } }
        }
    }

    public func removeData(for key: String) async throws {
        for cache in caches { _ = await Self.quietly(cache) { try await cache.removeData(for: key) } }
    }

    public func removeAll() async throws {
        for cache in caches { try await cache.removeAll() }
    }

    public func statistics() async -> CacheStatistics {
        var total = CacheStatistics(name: name, entryCount: 0, totalBytes: 0, hits: 0, misses: 0)
        for cache in caches {
            let s = await cache.statistics()
            total.entryCount += s.entryCount
            total.totalBytes += s.totalBytes
            total.hits += s.hits
            total.misses += s.misses
        }
        return total
    }

    public func allStatistics() async -> [CacheStatistics] {
        var result: [CacheStatistics] = []
        for cache in caches { result.append(await cache.statistics()) }
        return result
    }

    private static func quietly<T: Sendable>(_ cache: any DataCaching, _ body: () async throws -> T) async -> T? {
        do { return try await body() } catch {
            HostLog.write(level: 2, source: cache.name, message: "cache failed, ignored: \(error)")
            return nil
        }
    }
}
