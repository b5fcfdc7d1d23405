import PluginAPI

/// What a Swift loader implements. The host opens an instance of the loader with its configuration (ABI 1.1
/// `open`): the kit parses it and asks the task type for its `Settings`; every load of that instance then starts
/// with them. `start` makes a task object and hands the host a handle to it (made with `OpaqueHandle.retain`,
/// before the task can call back); the kit answers `cancel` and `release` from the handle.
public protocol LoadTask: AnyObject, Sendable {
    /// What an instance's configuration resolves to (a loader without keys keeps `NoLoaderSettings`).
    associatedtype Settings: Sendable = NoLoaderSettings
    /// Reads the keys the loader documents and refuses the rest (`LoaderConfiguration.refuseUnknown`).
    static func settings(from configuration: LoaderConfiguration) throws -> Settings
    static func start(request: UnsafePointer<ip_load_request>?, callbacks: UnsafePointer<ip_load_callbacks>?,
                      settings: Settings) throws -> OpaquePointer
    /// Asks the load to stop soon; `complete(CANCELLED)` follows unless it already completed.
    func cancel()
}

/// The settings of a loader that takes no configuration.
public struct NoLoaderSettings: Sendable {
    public init() {}
}

extension LoadTask where Settings == NoLoaderSettings {
    public static func settings(from configuration: LoaderConfiguration) throws -> NoLoaderSettings {
        try configuration.refuseUnknown(known: [])
        return NoLoaderSettings()
    }
}

/// Builds a loader's `ip_loader` table from its task type (as `CoderTable` does for coders): ABI 1.1's open,
/// start2 and close, shared by every loader of the plugin, with cancel and release.
public enum LoaderTable {
    public static func make<Task: LoadTask>(descriptor: StaticTable<ip_loader_descriptor>, task: Task.Type) -> StaticTable<ip_loader> {
        var table = ip_loader()
        table.struct_size = UInt32(MemoryLayout<ip_loader>.size)
        table.descriptor = descriptor.pointer
        table.open = LoaderSlots.open
        table.start2 = LoaderSlots.start
        table.close = LoaderSlots.close
        table.cancel = LoaderSlots.cancel
        table.release = LoaderSlots.release
        let pointer = StaticStorage.value(table)
        LoaderSlots.registry.register(LoaderSlots.Opener { configuration in
            let settings = try Task.settings(from: configuration)
            return LoaderSlots.Instance { request, callbacks in try Task.start(request: request, callbacks: callbacks, settings: settings) }
        }, for: UnsafeRawPointer(pointer))
        return StaticTable(pointer)
    }
}

/// The C entry points behind `LoaderTable`.
enum LoaderSlots {
    /// Makes an instance of one loader from a parsed configuration.
    struct Opener: Sendable {
        let open: @Sendable (LoaderConfiguration) throws -> Instance
    }

    /// The object behind an instance handle: the loader's start, bound to the instance's settings.
    final class Instance: Sendable {
        let start: @Sendable (UnsafePointer<ip_load_request>?, UnsafePointer<ip_load_callbacks>?) throws -> OpaquePointer
        /// A writing loader's put and describe (LoaderWriting.swift); nil for a loader that only reads.
        let put: (@Sendable (PutRequest) throws -> Void)?
        let describe: (@Sendable (String) throws -> StoredObject?)?
        init(start: @escaping @Sendable (UnsafePointer<ip_load_request>?, UnsafePointer<ip_load_callbacks>?) throws -> OpaquePointer,
             put: (@Sendable (PutRequest) throws -> Void)? = nil, describe: (@Sendable (String) throws -> StoredObject?)? = nil) {
            self.start = start
            self.put = put
            self.describe = describe
        }
    }

    static let registry = ComponentRegistry<Opener>(kind: "loader")

    static let open: @convention(c) (UnsafePointer<ip_loader>?, UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?,
                                     ip_message) -> ip_status = { loader, configuration, instance, message in
        withStatus(message) {
            guard let instance else { throw PluginFailure.internalError("open called without an instance slot") }
            let opener = try registry.element(for: loader.map(UnsafeRawPointer.init))
            let parsed = try LoaderConfiguration(parsing: configuration.map { String(cString: $0) })
            instance.pointee = OpaqueHandle.retain(try opener.open(parsed))
        }
    }

    static let start: @convention(c) (OpaquePointer?, UnsafePointer<ip_load_request>?, UnsafePointer<ip_load_callbacks>?,
                                      UnsafeMutablePointer<OpaquePointer?>?, ip_message) -> ip_status = {
        instance, request, callbacks, task, message in
        withStatus(message) {
            guard let instance else { throw PluginFailure.internalError("start2 called without an instance") }
            guard let task else { throw PluginFailure.internalError("start2 called without a task slot") }
            task.pointee = try OpaqueHandle.object(instance, as: Instance.self).start(request, callbacks)
        }
    }

    static let close: @convention(c) (OpaquePointer?) -> Void = { instance in
        OpaqueHandle.release(instance, as: Instance.self)
    }

    static let cancel: @convention(c) (OpaquePointer?) -> Void = { handle in
        guard let handle else { return }
        (Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue() as? any LoadTask)?.cancel()
    }

    static let release: @convention(c) (OpaquePointer?) -> Void = { handle in
        guard let handle else { return }
        Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(handle)).release()
    }
}
