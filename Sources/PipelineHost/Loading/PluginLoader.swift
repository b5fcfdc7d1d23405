import PluginAPI
import Synchronization
import VersionedStructs

/// A loader inside a plugin (opened on first use), with the configuration its instance is opened with.
///
/// Under ABI 1.1 a loader is configured by the host (loader.h `open`): the first load opens an instance with
/// `configuration` and every later load of this object starts in it; `configured(_:)` gives the same loader with
/// another configuration, as a second object with its own instance. A 1.0 loader has no instances: it loads as is,
/// and refuses a non-empty configuration, since it could not obey it.
public final class PluginLoader: Sendable {
    public let descriptor: LoaderDescriptor
    /// "key=value" lines (loader.h); "" for the loader's defaults.
    public let configuration: String
    private let table: LazyTable<LoaderEntryPoints>
    private let instance = Mutex<OpenedLoader?>(nil)

    init(descriptor: LoaderDescriptor, table: LazyTable<LoaderEntryPoints>, configuration: String = "") {
        self.descriptor = descriptor
        self.table = table
        self.configuration = configuration
    }

    /// This loader with another configuration; the same object when the configuration is unchanged.
    public func configured(_ configuration: String) -> PluginLoader {
        configuration == self.configuration ? self : PluginLoader(descriptor: descriptor, table: table, configuration: configuration)
    }

    /// The opened instance, made on first use. A refused configuration is reported each time, with the loader's
    /// reason, and is retried by the next load (nothing is cached but success).
    public func opened() throws -> OpenedLoader {
        try instance.withLock { current in
            if let current { return current }
            let entryPoints = try table.get()
            var message = MessageBuffer()
            let (status, opened) = message.withMessage { entryPoints.open(configuration: configuration, message: $0) }
            guard let opened, status == ip_status(IP_STATUS_OK) else {
                let why = entryPoints.isConfigurable ? message.text : "this loader (ABI 1.0) takes no configuration"
                throw PipelineError.invalidArgument("loader \(descriptor.id) refused its configuration: \(why)")
            }
            current = opened
            return opened
        }
    }
}
