import PluginAPI

/// A loader's routing data, copied out of its static descriptor.
public struct LoaderDescriptor: Sendable, Hashable, Codable {
    public let id: String
    public let name: String
    public let version: String
    public let schemes: [String]
    public let capabilities: UInt64
    public let priority: Int
    public let pluginID: String

    init(reading pointer: UnsafePointer<ip_loader_descriptor>?, pluginID: String) throws {
        let raw = try ABIReading.read(pointer, as: ip_loader_descriptor.self, named: "loader descriptor")
        id = try ABIReading.identifier(raw.id, named: "loader id")
        name = try ABIReading.string(raw.name, named: "loader name")
        version = try ABIReading.string(raw.version, named: "loader version")
        schemes = try ABIReading.stringList(raw.schemes, named: "schemes").map { $0.lowercased() }
        guard !schemes.isEmpty else { throw ABIReading.Failure("loader \(id) declares no URL scheme") }
        capabilities = raw.capabilities
        priority = Int(raw.priority)
        self.pluginID = pluginID
    }

    public var capabilityNames: [String] {
        var names: [String] = []
        if capabilities & UInt64(IP_LOADER_THREAD_SAFE) != 0 { names.append("thread-safe") }
        if capabilities & UInt64(IP_LOADER_KNOWS_SIZE) != 0 { names.append("knows-size") }
        if capabilities & UInt64(IP_LOADER_WRITES) != 0 { names.append("writes") }
        if capabilities & UInt64(IP_LOADER_RANGES) != 0 { names.append("ranges") }
        return names
    }
}
