import PluginAPI
import VersionedStructs

/// A cache plugin's store, opened with a configuration string, as a `DataCaching` backend.
///
/// `@unchecked Sendable`: the store handle is only passed back to the plugin, which declares in its descriptor
/// whether its calls are thread-safe; calls to a store that is not are serialised by `lock`.
public final class PluginDataCache: DataCaching, @unchecked Sendable {
    public let descriptor: CacheDescriptor
    private let table: ip_cache
    private let store: OpaquePointer?
    private let lock = NSLockLike()
    public var name: String { descriptor.id }

    init(cache: PluginCache, configuration: String?) throws {
        descriptor = cache.descriptor
        let entryPoints = try cache.vtable()
        table = entryPoints.table
        var message = MessageBuffer()
        var opened: OpaquePointer?
        let status = withOptionalCString(configuration) { config in
            message.withMessage { m in PluginStatus(abi: entryPoints.open?(config, &opened, m) ?? ip_status(IP_STATUS_INTERNAL)) }
        }
        guard status == .ok else { throw PipelineError.cacheFailed(cache: cache.descriptor.id, status: status, message: message.text) }
        store = opened
    }

    deinit { table.close?(store) }

    private func call(_ body: (inout MessageBuffer) -> PluginStatus) throws -> PluginStatus {
        var message = MessageBuffer()
        let serial = descriptor.capabilities & UInt64(IP_CACHE_THREAD_SAFE) == 0
        let status = serial ? lock.with { body(&message) } : body(&message)
        if status != .ok && status != .notFound {
            throw PipelineError.cacheFailed(cache: descriptor.id, status: status, message: message.text)
        }
        return status
    }

    /// A store shared over the network (Redis, S3) blocks its caller for a round trip, or for its timeout when
    /// the store is unreachable: its calls run on `BlockingCallPool`'s threads, never on one of the cooperative
    /// pool's few threads (one per core), where a slow store would stall every other task of the process.
    private func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        guard descriptor.capabilities & UInt64(IP_CACHE_SHARED) != 0 else { return try body() }
        return try await BlockingCallPool.shared.run(body)
    }

    public func data(for key: String) async throws -> [UInt8]? {
        try await offPool { [self] in
            let sink = ByteSink(limit: 1 << 30)
            let status = try call { message in
                key.withCString { k in sink.withABI { s in message.withMessage { m in PluginStatus(abi: table.get(store, k, s, m)) } } }
            }
            return status == .ok ? sink.bytes : nil
        }
    }

    public func store(_ data: [UInt8], for key: String) async throws {
        try await offPool { [self] in
            _ = try call { message in
                key.withCString { k in data.withUnsafeBufferPointer { d in
                    message.withMessage { m in PluginStatus(abi: table.put(store, k, d.baseAddress, d.count, m)) }
                } }
            }
        }
    }

    public func removeData(for key: String) async throws {
        try await offPool { [self] in
            _ = try call { message in key.withCString { k in message.withMessage { m in PluginStatus(abi: table.remove(store, k, m)) } } }
        }
    }

    public func removeAll() async throws {
        guard let clear = table.clear else { return }
        try await offPool { [self] in
            _ = try call { message in message.withMessage { m in PluginStatus(abi: clear(store, m)) } }
        }
    }

    public func statistics() async -> CacheStatistics {
        var stats = ip_cache_stats()
        stats.struct_size = UInt32(MemoryLayout<ip_cache_stats>.size)
        if let read = table.stats { _ = lock.with { read(store, &stats) } }
        return CacheStatistics(name: descriptor.id, entryCount: Int(stats.entry_count), totalBytes: Int(stats.total_bytes),
                               hits: Int(stats.hits), misses: Int(stats.misses))
    }
}

extension PluginCache {
    /// Opens a store of this cache plugin (e.g. "redis://127.0.0.1:6379/0").
    public func open(configuration: String? = nil) throws -> PluginDataCache {
        try PluginDataCache(cache: self, configuration: configuration)
    }
}

/// A plain mutex for synchronous sections around non-thread-safe plugin calls.
final class NSLockLike: Sendable {
    private let mutex = Mutex(())
    func with<R>(_ body: () throws -> R) rethrows -> R { try mutex.withLock { _ in try body() } }
}

import Synchronization
