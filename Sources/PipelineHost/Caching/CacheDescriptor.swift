import PluginAPI
import VersionedStructs

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

/// A cache inside a plugin (opened on first use). The caches manager (with query/store policies) builds on these.
public final class PluginCache: Sendable {
    public let descriptor: CacheDescriptor
    private let table: LazyTable<CacheEntryPoints>

    init(descriptor: CacheDescriptor, table: LazyTable<CacheEntryPoints>) {
        self.descriptor = descriptor
        self.table = table
    }

    func vtable() throws -> CacheEntryPoints { try table.get() }
}
