/// What the host concluded about one file on the search path (`imagepipe plugins`).
public struct PluginRecord: Sendable, Codable {
    public enum State: Sendable, Codable, Equatable {
        case loaded
        case refused(reason: String)
        /// Another plugin earlier on the search path has the same ID.
        case shadowed(by: String)

        public var label: String {
            switch self {
            case .loaded: "loaded"
            case .refused: "refused"
            case .shadowed: "shadowed"
            }
        }
    }

    public let path: String
    public let state: State
    public let pluginID: String?
    public let name: String?
    public let version: String?
    /// "major.minor" the plugin was built for, and the minor negotiated with the host.
    public let abiVersion: String?
    public let negotiatedMinor: Int?
    public let coderIDs: [String]
    public let loaderIDs: [String]
    public let cacheIDs: [String]
    /// Components dropped because an earlier plugin registered the same ID.
    public let shadowedComponents: [String]

    public var isLoaded: Bool { state == .loaded }

    static func refused(_ path: String, _ reason: String, entry: PluginEntryInfo? = nil) -> PluginRecord {
        PluginRecord(path: path, state: .refused(reason: reason), pluginID: entry?.id, name: entry?.name,
                     version: entry?.version, abiVersion: entry?.abiVersion, negotiatedMinor: nil,
                     coderIDs: [], loaderIDs: [], cacheIDs: [], shadowedComponents: [])
    }
}

/// The identifying fields of a plugin's entry table.
struct PluginEntryInfo {
    let id: String
    let name: String
    let version: String
    let abiMajor: Int
    let abiMinor: Int
    var abiVersion: String { "\(abiMajor).\(abiMinor)" }
}
