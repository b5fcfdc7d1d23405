import PluginAPI

// The one rule for calling a component's slots under ABI 1.1 (coder.h, loader.h, cache.h): a "2" slot, which is
// told the component it serves, when the plugin filled it; else the 1.0 slot of the same name. The host and the
// plugin tester both call plugins through these, so the two cannot disagree on which slot runs. Each slot is
// offered as an optional closure with the 1.0 slot's signature (nil when neither is filled), so a caller reads
// as it did against a 1.0 table.

/// A coder's slots, bound to the table pointer its factory listed.
/// `@unchecked Sendable`: a copy of a static table and a pointer into a never-unloaded library.
public struct CoderEntryPoints: @unchecked Sendable {
    /// The plugin's table as read (the `VersionedStruct` copy): handle slots and the descriptor are used from it.
    public let table: ip_coder
    /// The table's address in the plugin: what the "2" slots receive.
    public let pointer: UnsafePointer<ip_coder>

    public init(pointer: UnsafePointer<ip_coder>, table: ip_coder) {
        self.pointer = pointer
        self.table = table
    }

    public var sniff: ((UnsafePointer<UInt8>?, Int) -> ip_status)? {
        if let slot = table.sniff2 { return { [pointer] in slot(pointer, $0, $1) } }
        return table.sniff.map { slot in { slot($0, $1) } }
    }

    public var probe: ((UnsafePointer<ip_decode_request>?, UnsafeMutablePointer<ip_image_info>?, ip_message) -> ip_status)? {
        if let slot = table.probe2 { return { [pointer] in slot(pointer, $0, $1, $2) } }
        return table.probe.map { slot in { slot($0, $1, $2) } }
    }

    public var decode: ((UnsafePointer<ip_decode_request>?, UnsafeMutablePointer<ip_image>?, ip_message) -> ip_status)? {
        if let slot = table.decode2 { return { [pointer] in slot(pointer, $0, $1, $2) } }
        return table.decode.map { slot in { slot($0, $1, $2) } }
    }

    public var framesOpen: ((UnsafePointer<ip_decode_request>?, UnsafeMutablePointer<OpaquePointer?>?, ip_message) -> ip_status)? {
        if let slot = table.frames_open2 { return { [pointer] in slot(pointer, $0, $1, $2) } }
        return table.frames_open.map { slot in { slot($0, $1, $2) } }
    }

    public var incrementalOpen: ((UnsafePointer<ip_decode_options>?, UnsafeMutablePointer<OpaquePointer?>?, ip_message) -> ip_status)? {
        if let slot = table.incremental_open2 { return { [pointer] in slot(pointer, $0, $1, $2) } }
        return table.incremental_open.map { slot in { slot($0, $1, $2) } }
    }

    public var encode: ((UnsafePointer<UnsafePointer<ip_image>?>?, UInt32, UnsafePointer<ip_encode_options>?, OpaquePointer?,
                         UnsafePointer<ip_byte_sink>?, ip_message) -> ip_status)? {
        if let slot = table.encode2 { return { [pointer] in slot(pointer, $0, $1, $2, $3, $4, $5) } }
        return table.encode.map { slot in { slot($0, $1, $2, $3, $4, $5) } }
    }

    /// ABI 1.1 only (no 1.0 slot of that name).
    public var transcode: ((UnsafePointer<ip_transcode_request>?, UnsafePointer<ip_byte_sink>?, ip_message) -> ip_status)? {
        table.transcode.map { slot in { [pointer] in slot(pointer, $0, $1, $2) } }
    }
}

/// A loader's slots: with ABI 1.1's `open`, loads start in an instance (`OpenedLoader`); without, through start.
/// `@unchecked Sendable`: as `CoderEntryPoints`.
public struct LoaderEntryPoints: @unchecked Sendable {
    public let table: ip_loader
    public let pointer: UnsafePointer<ip_loader>

    public init(pointer: UnsafePointer<ip_loader>, table: ip_loader) {
        self.pointer = pointer
        self.table = table
    }

    /// Whether the loader takes a configuration (it has the 1.1 instance slots).
    public var isConfigurable: Bool { table.open != nil }

    /// Whether the slots the rule requires are present: start (1.0), or open + start2 + close (1.1); and cancel and release.
    public var isComplete: Bool {
        let starts = table.open == nil ? table.start != nil : (table.start2 != nil && table.close != nil)
        return starts && table.cancel != nil && table.release != nil
    }

    /// Opens an instance with `configuration` (1.1), or the loader itself when it has no instances (1.0; a
    /// non-empty configuration then fails: a 1.0 loader cannot obey one). The message is the plugin's on failure.
    public func open(configuration: String, message: ip_message) -> (ip_status, OpenedLoader?) {
        guard let open = table.open else {
            guard configuration.isEmpty else { return (ip_status(IP_STATUS_UNSUPPORTED), nil) }
            return (ip_status(IP_STATUS_OK), OpenedLoader(entryPoints: self, instance: nil))
        }
        var instance: OpaquePointer?
        let status = configuration.isEmpty
            ? open(pointer, nil, &instance, message)
            : configuration.withCString { open(pointer, $0, &instance, message) }
        guard status == ip_status(IP_STATUS_OK) else { return (status, nil) }
        return (status, OpenedLoader(entryPoints: self, instance: instance))
    }
}

/// One opened loader: the instance a 1.1 loader made (closed when this is released), or a 1.0 loader as is.
/// `@unchecked Sendable`: the instance is plugin-owned and its start2 is [thread-safe]; close runs once, in deinit.
public final class OpenedLoader: @unchecked Sendable {
    public let entryPoints: LoaderEntryPoints
    private let instance: OpaquePointer?

    init(entryPoints: LoaderEntryPoints, instance: OpaquePointer?) {
        self.entryPoints = entryPoints
        self.instance = instance
    }

    deinit {
        if entryPoints.table.open != nil { entryPoints.table.close?(instance) }
    }

    /// Starts a load: start2 in the instance (1.1) or start (1.0).
    public func start(_ request: UnsafePointer<ip_load_request>, _ callbacks: UnsafePointer<ip_load_callbacks>,
                      _ task: UnsafeMutablePointer<OpaquePointer?>, _ message: ip_message) -> ip_status {
        if entryPoints.table.open != nil, let start2 = entryPoints.table.start2 {
            return start2(instance, request, callbacks, task, message)
        }
        guard let start = entryPoints.table.start else { return ip_status(IP_STATUS_INTERNAL) }
        return start(request, callbacks, task, message)
    }

    /// Whether the loader writes (ABI 1.1 put and describe, within an instance).
    public var writes: Bool { entryPoints.table.open != nil && entryPoints.table.put != nil && entryPoints.table.describe != nil }

    public func put(_ request: UnsafePointer<ip_put_request>, _ message: ip_message) -> ip_status {
        guard writes, let put = entryPoints.table.put else { return ip_status(IP_STATUS_UNSUPPORTED) }
        return put(instance, request, message)
    }

    public func describe(_ url: UnsafePointer<CChar>, _ info: UnsafeMutablePointer<ip_object_info>,
                         _ metadata: UnsafePointer<ip_byte_sink>, _ message: ip_message) -> ip_status {
        guard writes, let describe = entryPoints.table.describe else { return ip_status(IP_STATUS_UNSUPPORTED) }
        return describe(instance, url, info, metadata, message)
    }
}

/// A cache's slots: `open` is open2 with the cache's own pointer when filled (1.1), else open.
/// `@unchecked Sendable`: as `CoderEntryPoints`.
public struct CacheEntryPoints: @unchecked Sendable {
    public let table: ip_cache
    public let pointer: UnsafePointer<ip_cache>

    public init(pointer: UnsafePointer<ip_cache>, table: ip_cache) {
        self.pointer = pointer
        self.table = table
    }

    public var open: ((UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?, ip_message) -> ip_status)? {
        if let slot = table.open2 { return { [pointer] in slot(pointer, $0, $1, $2) } }
        return table.open.map { slot in { slot($0, $1, $2) } }
    }
}
