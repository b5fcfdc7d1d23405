import PluginAPI

/// A cache plugin's routing data, copied out of its static descriptor.
public struct CacheDescriptor: Sendable, Hashable, Codable {
    public let id: String
    public let name: String
    public let version: String
    public let capabilities: UInt64
    public let priority: Int
    public let pluginID: String

    init(reading pointer: UnsafePointer<ip_cache_descriptor>?, pluginID: String) throws {
        let raw = try ABIReading.read(pointer, as: ip_cache_descriptor.self, named: "cache descriptor")
        id = try ABIReading.identifier(raw.id, named: "cache id")
        name = try ABIReading.string(raw.name, named: "cache name")
        version = try ABIReading.string(raw.version, named: "cache version")
        capabilities = raw.capabilities
        priority = Int(raw.priority)
        self.pluginID = pluginID
    }

    public var capabilityNames: [String] {
        var names: [String] = []
        if capabilities & UInt64(IP_CACHE_THREAD_SAFE) != 0 { names.append("thread-safe") }
        if capabilities & UInt64(IP_CACHE_PERSISTENT) != 0 { names.append("persistent") }
        if capabilities & UInt64(IP_CACHE_SHARED) != 0 { names.append("shared") }
        return names
    }
}

/// A cache inside a loaded plugin. The caches manager (with query/store policies) builds on these.
public final class PluginCache: Sendable {
    public let descriptor: CacheDescriptor
    /// `nonisolated(unsafe)`: a static, immutable table inside a never-unloaded plugin.
    nonisolated(unsafe) let vtable: ip_cache

    init(reading pointer: UnsafePointer<ip_cache>?, pluginID: String) throws {
        let table = try ABIReading.read(pointer, as: ip_cache.self, named: "cache")
        descriptor = try CacheDescriptor(reading: table.descriptor, pluginID: pluginID)
        guard table.open != nil, table.get != nil, table.put != nil, table.remove != nil, table.close != nil else {
            throw ABIReading.Failure("cache \(descriptor.id) lacks one of open, get, put, remove, close")
        }
        vtable = table
    }
}
