import Dispatch
import PluginAPI
import PluginKit
import Synchronization

/// One load: opens the file, reports its size, streams it to the host in chunks, then completes exactly once.
///
/// The host owns a +1 reference through the opaque task pointer (from `start` until `release`); the worker
/// closure holds its own, so the task outlives whichever of the two finishes last.
final class FileLoadTask: Sendable {
    /// Bytes per `data` callback: large enough that per-call overhead vanishes, small enough to cancel promptly.
    static let chunkSize = 256 << 10

    let location: FileLocation
    /// The request's URL as given, reported as the effective URL.
    let url: String
    /// 0 = no limit.
    let maxBytes: UInt64
    let callbacks: LoadCallbacks
    private let cancelled = Atomic<Bool>(false)

    private init(location: FileLocation, url: String, maxBytes: UInt64, callbacks: LoadCallbacks) {
        self.location = location
        self.url = url
        self.maxBytes = maxBytes
        self.callbacks = callbacks
    }

    /// Validates the request, then runs the load on a background thread; returns the task handle at once.
    /// A malformed request (bad URL, another host) fails here, synchronously, so no callback is ever made.
    static func start(request: UnsafePointer<ip_load_request>?, callbacks: UnsafePointer<ip_load_callbacks>?,
                      settings: NoLoaderSettings) throws -> OpaquePointer {
        guard let request else { throw PluginFailure.internalError("start called without a request") }
        let copy = try ABIStruct.read(request, named: "ip_load_request")
        guard let cURL = copy.url else { throw PluginFailure.internalError("the load request has no URL") }
        let url = String(cString: cURL)
        let task = FileLoadTask(
            location: try FileLocation(parsing: url), url: url, maxBytes: copy.max_bytes,
            callbacks: try LoadCallbacks(copying: callbacks))
        DispatchQueue.global().async { task.run() }
        return OpaqueHandle.retain(task)
    }


    /// Asks the worker to stop at its next chunk boundary; it then completes with CANCELLED.
    func cancel() { cancelled.store(true, ordering: .relaxed) }

    private var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// The worker: everything happens here, and `complete` is its last act.
    private func run() {
        do {
            try transfer()
            callbacks.complete(ip_status(IP_STATUS_OK), "")
        } catch let failure as PluginFailure {
            callbacks.complete(failure.status, failure.message)
        } catch {
            callbacks.complete(ip_status(IP_STATUS_INTERNAL), "\(error)")
        }
    }

    /// Opens, checks the limit, streams. The file is closed when this returns, before `complete` is called.
    private func transfer() throws {
        if isCancelled { throw PluginFailure.cancelled }
        let file = try OpenedFile(opening: location)
        if maxBytes > 0, file.size > 0, UInt64(file.size) > maxBytes {
            throw PluginFailure.limitExceeded(
                "\(location.displayPath) is \(file.size) bytes, over the limit of \(maxBytes) bytes")
        }
        // Files such as those in /proc report size 0 yet have content: say "unknown" rather than a wrong 0.
        let accepted = url.withCString {
            callbacks.response(statusCode: 0, expectedSize: file.size > 0 ? file.size : -1, contentType: nil, effectiveURL: $0)
        }
        guard accepted else {
            throw PluginFailure(IP_STATUS_CANCELLED, "the host rejected the response")
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var total: UInt64 = 0
        while true {
            if isCancelled { throw PluginFailure.cancelled }
            let count = try file.read(into: buffer, location: location)
            if count == 0 { return }
            total += UInt64(count)
            // The size was checked at open, but the file may have grown since.
            if maxBytes > 0, total > maxBytes {
                throw PluginFailure.limitExceeded(
                    "\(location.displayPath) grew past the limit of \(maxBytes) bytes while being read")
            }
            guard callbacks.data(UnsafeRawBufferPointer(rebasing: buffer[..<count])) else {
                throw PluginFailure(IP_STATUS_CANCELLED, "the host stopped the transfer")
            }
        }
    }
}
