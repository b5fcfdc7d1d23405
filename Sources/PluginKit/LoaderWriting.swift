import PluginAPI

/// What a loader that also writes its scheme implements (ABI 1.1 `IP_LOADER_WRITES`: `put` and `describe`): an
/// output of `imagepipe render -o s3://…` is written by the plugin that reads s3:// URLs, with the same
/// configuration and credentials, so the host never learns a store's protocol.
public protocol LoadWriting: LoadTask {
    /// Stores the bytes under the request's URL (all or nothing), or throws in the pipeline's terms.
    static func put(_ request: PutRequest, settings: Settings) throws
    /// What is stored at `url`, or nil when nothing is.
    static func describe(url: String, settings: Settings) throws -> StoredObject?
}

/// One write, copied out of `ip_put_request` except the bytes (borrowed for the call).
public struct PutRequest {
    public let url: String
    public let bytes: UnsafeRawBufferPointer
    public let contentType: String?
    /// The "name: value" lines to keep with the object, split and checked (names lower case, values printable ASCII).
    public let metadata: [(name: String, value: String)]
    /// 0 = the loader's default.
    public let timeoutMilliseconds: UInt32

    init(copying pointer: UnsafePointer<ip_put_request>?) throws {
        guard let pointer else { throw PluginFailure.internalError("put called without a request") }
        let raw = try ABIStruct.read(pointer, named: "ip_put_request")
        guard let cURL = raw.url else { throw PluginFailure.internalError("the put request has no URL") }
        url = String(cString: cURL)
        guard raw.data != nil || raw.size == 0 else { throw PluginFailure.internalError("the put request has bytes but no pointer") }
        bytes = UnsafeRawBufferPointer(start: raw.data, count: raw.size)
        contentType = raw.content_type.map { String(cString: $0) }
        var lines: [(String, String)] = []
        if var cursor = raw.metadata {
            while let line = cursor.pointee {
                lines.append(try Self.metadataLine(String(cString: line)))
                cursor += 1
            }
        }
        metadata = lines
        timeoutMilliseconds = raw.timeout_ms
    }

    private static func metadataLine(_ text: String) throws -> (String, String) {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else {
            throw PluginFailure.invalidData("metadata line '\(text.debugDescription)' is not 'name: value'")
        }
        let name = String(text[..<colon])
        var value = Substring(text[text.index(after: colon)...])
        while value.first == " " { value.removeFirst() }
        guard name.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }) else {
            throw PluginFailure.invalidData("metadata name '\(name)' is not lower-case letters, digits and '-'")
        }
        guard value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw PluginFailure.invalidData("the value of metadata '\(name)' is not printable ASCII")
        }
        return (name, String(value))
    }
}

/// What `describe` reports: the object's size and modification time and the metadata `put` kept with it.
public struct StoredObject: Sendable {
    public var size: Int64?
    /// Seconds since the Unix epoch.
    public var modified: Int64?
    public var metadata: [(name: String, value: String)]

    public init(size: Int64?, modified: Int64?, metadata: [(name: String, value: String)]) {
        self.size = size
        self.modified = modified
        self.metadata = metadata
    }
}

extension LoaderTable {
    /// The table of a loader that writes too: `make` plus the put and describe slots and `IP_LOADER_WRITES`
    /// (the descriptor must claim it: the host checks that claim and slots agree).
    public static func make<Task: LoadWriting>(descriptor: StaticTable<ip_loader_descriptor>, writingTask task: Task.Type) -> StaticTable<ip_loader> {
        var table = ip_loader()
        table.struct_size = UInt32(MemoryLayout<ip_loader>.size)
        table.descriptor = descriptor.pointer
        table.open = LoaderSlots.open
        table.start2 = LoaderSlots.start
        table.close = LoaderSlots.close
        table.cancel = LoaderSlots.cancel
        table.release = LoaderSlots.release
        table.put = LoaderSlots.put
        table.describe = LoaderSlots.describe
        let pointer = StaticStorage.value(table)
        LoaderSlots.registry.register(LoaderSlots.Opener { configuration in
            let settings = try Task.settings(from: configuration)
            return LoaderSlots.Instance(
                start: { request, callbacks in try Task.start(request: request, callbacks: callbacks, settings: settings) },
                put: { request in try Task.put(request, settings: settings) },
                describe: { url in try Task.describe(url: url, settings: settings) })
        }, for: UnsafeRawPointer(pointer))
        return StaticTable(pointer)
    }
}

extension LoaderSlots {
    static let put: @convention(c) (OpaquePointer?, UnsafePointer<ip_put_request>?, ip_message) -> ip_status = { instance, request, message in
        withStatus(message) {
            guard let instance else { throw PluginFailure.internalError("put called without an instance") }
            guard let put = try OpaqueHandle.object(instance, as: Instance.self).put else {
                throw PluginFailure.unsupported("this loader does not write")
            }
            try put(try PutRequest(copying: request))
        }
    }

    static let describe: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<ip_object_info>?,
                                         UnsafePointer<ip_byte_sink>?, ip_message) -> ip_status = { instance, url, info, sink, message in
        withStatus(message) {
            guard let instance, let url else { throw PluginFailure.internalError("describe called without an instance or URL") }
            guard let describe = try OpaqueHandle.object(instance, as: Instance.self).describe else {
                throw PluginFailure.unsupported("this loader does not write")
            }
            guard let object = try describe(String(cString: url)) else {
                throw PluginFailure.notFound("nothing is stored at \(String(cString: url))")
            }
            if let info {
                // Only the fields within the host's struct_size (the host may be older than this kit).
                let size = Int(info.pointee.struct_size)
                if size >= MemoryLayout<ip_object_info>.offset(of: \.size)! + 8 { info.pointee.size = object.size ?? -1 }
                if size >= MemoryLayout<ip_object_info>.offset(of: \.modified)! + 8 { info.pointee.modified = object.modified ?? -1 }
            }
            if let sink, let write = sink.pointee.write, !object.metadata.isEmpty {
                let text = Array(object.metadata.map { "\($0.name): \($0.value)\n" }.joined().utf8)
                let status = text.withUnsafeBufferPointer { write(sink.pointee.context, $0.baseAddress, $0.count) }
                if status != ip_status(IP_STATUS_OK) { throw PluginFailure(status, "the sink refused the metadata") }
            }
        }
    }
}
