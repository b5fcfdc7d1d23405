import PluginKit

/// What an instance of the HTTP loader is configured with (ABI 1.1 `open`; Plugins/HTTPLoader/README.md lists the
/// keys). The host hands these over; the plugin reads no environment variable.
struct HTTPLoaderSettings: Sendable {
    /// Connections per origin host; beyond it transfers wait inside libcurl for a free connection.
    static let defaultMaxHostConnections = 6
    static let keys = ["max-connections"]

    let maxHostConnections: Int

    init(_ configuration: LoaderConfiguration) throws {
        try configuration.refuseUnknown(known: Self.keys)
        maxHostConnections = try configuration.integer(for: "max-connections", in: 1...1000) ?? Self.defaultMaxHostConnections
    }
}

extension HTTPLoadTask {
    static func settings(from configuration: LoaderConfiguration) throws -> HTTPLoaderSettings {
        try HTTPLoaderSettings(configuration)
    }
}
