import PluginAPI

/// What a writing loader reports of a stored object (ABI 1.1 `describe`).
public struct StoredObjectInfo: Sendable, Equatable {
    public let size: Int64?
    /// Seconds since the Unix epoch.
    public let modified: Int64?
    /// The metadata lines `put` stored, by name.
    public let metadata: [String: String]
}

/// Outputs to a loader's own scheme (ABI 1.1 `IP_LOADER_WRITES`): `imagepipe render -o s3://…` is written by the
/// plugin that reads s3:// URLs, with the same instance and so the same configuration and credentials.
extension PluginLoader {
    public var writes: Bool { descriptor.capabilities & UInt64(IP_LOADER_WRITES) != 0 }

    /// Stores `bytes` at `url` (all or nothing). Blocking: it returns when the object is stored, so call it off
    /// the cooperative pool's hot paths (a batch's output lane).
    public func put(_ bytes: [UInt8], to url: String, contentType: String?, metadata: [(name: String, value: String)],
                    timeout: Double? = nil) throws {
        let loader = try opened()
        guard loader.writes else { throw PipelineError.invalidArgument("loader \(descriptor.id) does not write \(urlScheme(of: url)):// URLs") }
        var message = MessageBuffer()
        let status: PluginStatus = withCStringArray(metadata.map { "\($0.name): \($0.value)" }) { lines in
            url.withCString { cURL in
                withOptionalCString(contentType) { cType in
                    bytes.withUnsafeBufferPointer { data in
                        var request = ip_put_request(
                            struct_size: UInt32(MemoryLayout<ip_put_request>.size), url: cURL, data: data.baseAddress, size: data.count,
                            content_type: cType, metadata: lines, timeout_ms: UInt32(clamping: Int((timeout ?? 0) * 1000)))
                        return message.withMessage { PluginStatus(abi: loader.put(&request, $0)) }
                    }
                }
            }
        }
        guard status == .ok else { throw PipelineError.loadingFailed(url: url, loader: descriptor.id, status: status, message: message.text) }
    }

    /// What is stored at `url`, or nil when nothing is.
    public func describe(_ url: String) throws -> StoredObjectInfo? {
        let loader = try opened()
        guard loader.writes else { throw PipelineError.invalidArgument("loader \(descriptor.id) does not write \(urlScheme(of: url)):// URLs") }
        var message = MessageBuffer()
        var info = ip_object_info(struct_size: UInt32(MemoryLayout<ip_object_info>.size), size: -1, modified: -1)
        let sink = ByteSink(limit: 64 << 10)
        let status = url.withCString { cURL in
            sink.withABI { abiSink in message.withMessage { PluginStatus(abi: loader.describe(cURL, &info, abiSink, $0)) } }
        }
        if status == .notFound { return nil }
        guard status == .ok else { throw PipelineError.loadingFailed(url: url, loader: descriptor.id, status: status, message: message.text) }
        var metadata: [String: String] = [:]
        for line in String(decoding: sink.bytes, as: UTF8.self).split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            metadata[String(line[..<colon])] = String(line[line.index(after: colon)...].drop { $0 == " " })
        }
        return StoredObjectInfo(size: info.size >= 0 ? info.size : nil, modified: info.modified >= 0 ? info.modified : nil, metadata: metadata)
    }
}

extension LoadersManager {
    /// The loader that writes `url`'s scheme, or a failure saying why there is none.
    public func writer(for url: String) throws -> PluginLoader {
        guard let loader = loader(for: url) else {
            let error = PipelineError.noLoader(url: url, scheme: urlScheme(of: url))
            throw loaders.isEmpty ? nothingInstalled ?? error : error
        }
        guard loader.writes else {
            throw PipelineError.invalidArgument("the \(urlScheme(of: url)) loader (\(loader.descriptor.id)) reads but does not write; cannot write \(url)")
        }
        return loader
    }
}

private func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}
