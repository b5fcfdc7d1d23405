import PluginAPI

/// What a Swift cache implements: a store opened from a configuration string, mapping the host's keys to bytes.
/// The kit hands the host a handle to the store and answers every slot through it (`CacheTable.make`).
public protocol CacheStore: AnyObject, Sendable {
    /// Opens a store (the configuration is cache-specific; nil or empty for the defaults).
    static func open(configuration: String?) throws -> Self
    /// The value stored for `key`, or nil on a miss.
    func value(for key: String) throws -> [UInt8]?
    /// Stores or replaces a value (the bytes are borrowed for the call).
    func store(_ value: UnsafeBufferPointer<UInt8>, for key: String) throws
    /// Removes a key; absent keys are not an error.
    func remove(_ key: String) throws
    /// Removes every entry of this store.
    func removeAll() throws
    /// Entry count, bytes, hits and misses, when the store keeps them.
    func statistics() -> ip_cache_stats?
}

extension CacheStore {
    public func statistics() -> ip_cache_stats? { nil }
}

/// Builds a cache's `ip_cache` table from its store type (as `CoderTable` does for coders): ABI 1.1's open2, told
/// which cache it opens, is one entry point for every cache; the other slots find the store through its handle.
public enum CacheTable {
    public static func make(descriptor: StaticTable<ip_cache_descriptor>, store: any CacheStore.Type) -> StaticTable<ip_cache> {
        var table = ip_cache()
        table.struct_size = UInt32(MemoryLayout<ip_cache>.size)
        table.descriptor = descriptor.pointer
        table.open2 = CacheSlots.open
        table.get = CacheSlots.get
        table.put = CacheSlots.put
        table.remove = CacheSlots.remove
        table.clear = CacheSlots.clear
        table.stats = CacheSlots.stats
        table.close = CacheSlots.close
        let pointer = StaticStorage.value(table)
        CacheSlots.registry.register(store, for: UnsafeRawPointer(pointer))
        return StaticTable(pointer)
    }
}

/// The C entry points behind `CacheTable`, shared by every cache of the plugin.
enum CacheSlots {
    static let registry = ComponentRegistry<any CacheStore.Type>(kind: "cache")

    /// The object behind a store handle.
    final class Handle: Sendable {
        let store: any CacheStore
        init(_ store: any CacheStore) { self.store = store }
    }

    static let open: @convention(c) (UnsafePointer<ip_cache>?, UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?,
                                     ip_message) -> ip_status = { cache, configuration, store, message in
        withStatus(message) {
            guard let store else { throw PluginFailure.internalError("open called without a store slot") }
            let type = try registry.element(for: cache.map(UnsafeRawPointer.init))
            store.pointee = OpaqueHandle.retain(Handle(try type.open(configuration: configuration.map { String(cString: $0) })))
        }
    }

    private static func store(_ handle: OpaquePointer?) throws -> any CacheStore {
        guard let handle else { throw PluginFailure.internalError("NULL store") }
        return OpaqueHandle.object(handle, as: Handle.self).store
    }

    private static func key(_ key: UnsafePointer<CChar>?) throws -> String {
        guard let key else { throw PluginFailure.invalidData("NULL key") }
        return String(cString: key)
    }

    static let get: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<ip_byte_sink>?, ip_message) -> ip_status = {
        handle, key, sink, message in
        withStatus(message) {
            guard let sink, let write = sink.pointee.write else { throw PluginFailure.internalError("no sink") }
            guard let value = try CacheSlots.store(handle).value(for: try CacheSlots.key(key)) else {
                throw PluginFailure(IP_STATUS_NOT_FOUND, "no such key")
            }
            let status = value.withUnsafeBufferPointer { write(sink.pointee.context, $0.baseAddress, $0.count) }
            if status != ip_status(IP_STATUS_OK) { throw PluginFailure(status, "the sink refused the value") }
        }
    }

    static let put: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<UInt8>?, Int, ip_message) -> ip_status = {
        handle, key, data, size, message in
        withStatus(message) {
            try CacheSlots.store(handle).store(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size),
                                               for: try CacheSlots.key(key))
        }
    }

    static let remove: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, ip_message) -> ip_status = { handle, key, message in
        withStatus(message) { try CacheSlots.store(handle).remove(try CacheSlots.key(key)) }
    }

    static let clear: @convention(c) (OpaquePointer?, ip_message) -> ip_status = { handle, message in
        withStatus(message) { try CacheSlots.store(handle).removeAll() }
    }

    static let stats: @convention(c) (OpaquePointer?, UnsafeMutablePointer<ip_cache_stats>?) -> ip_status = { handle, target in
        guard let target, let store = try? CacheSlots.store(handle) else { return ip_status(IP_STATUS_INTERNAL) }
        guard var value = store.statistics() else { return ip_status(IP_STATUS_UNSUPPORTED) }
        value.struct_size = UInt32(MemoryLayout<ip_cache_stats>.size)
        ABIStruct.write(value, to: target)
        return ip_status(IP_STATUS_OK)
    }

    static let close: @convention(c) (OpaquePointer?) -> Void = { handle in
        OpaqueHandle.release(handle, as: Handle.self)
    }
}
