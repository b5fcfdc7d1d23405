import PluginAPI
import PluginKit

/// One load of a `data:` URL. The bytes are in the URL, so the whole load happens inside `start`: the ABI allows
/// callbacks there (loader.h), and `complete` is still called exactly once, last. The task object exists because
/// the ABI hands the host a task handle that it cancels and releases; cancelling a finished load does nothing.
final class DataLoadTask: Sendable {
    /// What an instance may be configured with: `max-url-bytes`, the longest URL it decodes (default 64 MiB), so
    /// an operator can bound what a client may put in a URL. Unknown keys fail the open, naming them.
    struct Settings: Sendable {
        var maxURLBytes = 64 << 20
    }

    static func settings(from configuration: LoaderConfiguration) throws -> Settings {
        try configuration.refuseUnknown(known: ["max-url-bytes"])
        var settings = Settings()
        if let limit = try configuration.integer(for: "max-url-bytes", in: 16...(1 << 30)) { settings.maxURLBytes = limit }
        return settings
    }

    static func start(request: UnsafePointer<ip_load_request>?, callbacks: UnsafePointer<ip_load_callbacks>?,
                      settings: Settings) throws -> OpaquePointer {
        // Everything wrong with the request fails here, before any callback (then no callback may ever come).
        guard let request else { throw PluginFailure.internalError("start called without a request") }
        let copy = try ABIStruct.read(request, named: "ip_load_request")
        guard let cURL = copy.url else { throw PluginFailure.internalError("the load request has no URL") }
        let length = strnlen(cURL, settings.maxURLBytes + 1)
        guard length <= settings.maxURLBytes else {
            throw PluginFailure.limitExceeded("the data: URL is longer than \(settings.maxURLBytes) bytes (max-url-bytes)")
        }
        let url = DataURL.Parsed(try DataURL.parse(UnsafeRawBufferPointer(start: cURL, count: length)))
        let callbacks = try LoadCallbacks(copying: callbacks)
        let task = DataLoadTask()
        let handle = OpaqueHandle.retain(task)
        // From here on the load is started: every outcome is reported through complete, exactly once.
        if copy.max_bytes > 0, UInt64(url.bytes.count) > copy.max_bytes {
            callbacks.complete(ip_status(IP_STATUS_LIMIT_EXCEEDED), "the data: URL holds \(url.bytes.count) bytes, over the limit of \(copy.max_bytes)")
            return handle
        }
        let accepted = url.mediaType.withCString {
            callbacks.response(statusCode: 0, expectedSize: Int64(url.bytes.count), contentType: $0, effectiveURL: nil)
        }
        guard accepted else {
            callbacks.complete(ip_status(IP_STATUS_CANCELLED), "the host rejected the response")
            return handle
        }
        let delivered = url.bytes.withUnsafeBytes { callbacks.data($0) }
        if delivered {
            callbacks.complete(ip_status(IP_STATUS_OK), "")
        } else {
            callbacks.complete(ip_status(IP_STATUS_CANCELLED), "the host stopped the transfer")
        }
        return handle
    }

    /// The load is over before `start` returns: nothing is left to stop.
    func cancel() {}
}

#if canImport(Glibc)
import Glibc
#endif
