import CCurl
import PluginAPI
import PluginKit
import Synchronization

/// One load: a configured curl easy handle plus what the transfer has seen so far.
///
/// Ownership: the host holds a +1 reference through the opaque task pointer (from `start` until `release`);
/// the engine holds its own while the transfer is queued or running, so the task outlives whichever of the two
/// lets go last, and `release` may run as soon as `complete` has been called.
///
/// `@unchecked Sendable`: after `start` hands the task to the engine, every mutable field is read and written
/// only on the engine thread (libcurl calls the write and header callbacks from `curl_multi_perform` there);
/// the one field other threads touch, the cancel flag, is atomic.
final class HTTPLoadTask: @unchecked Sendable {
    let request: HTTPRequest
    let callbacks: LoadCallbacks
    /// The engine of the instance that started the task (cancellations go to it).
    let engine: TransferEngine
    /// The curl easy handle; nil once the transfer has finished and the handle was cleaned up.
    private(set) var easy: UnsafeMutableRawPointer?
    /// Owned by the handle's transfer (libcurl does not copy header lists); freed with the handle.
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// libcurl writes its detailed message for a failure here (CURLOPT_ERRORBUFFER).
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    private let cancelRequested = Atomic<Bool>(false)

    /// Engine-thread state: what the transfer has delivered and why a callback stopped it.
    var responded = false
    var delivered: UInt64 = 0
    /// The current response announced a Content-Encoding, so Content-Length counts encoded bytes.
    var contentEncoded = false
    /// The current response's Content-Length header; -1 when absent.
    var announcedLength: Int64 = -1
    var stopReason: PluginFailure?
    /// When the engine added the transfer (CLOCK_MONOTONIC nanoseconds) and whether a response header has come
    /// since: the first-byte deadline counts from the first and ends with the second.
    var startedAt: UInt64 = 0
    var headersBegan = false
    /// The current response: its status and header lines (reset at each "HTTP/" status line), kept for the host's
    /// `header` callback (final response) and for redirect vetting (a 3xx's Location).
    var responseStatus = 0
    var responseHeaders: [(name: String, value: String)] = []
    private var finished = false

    private init(request: HTTPRequest, callbacks: LoadCallbacks, engine: TransferEngine) {
        self.request = request
        self.callbacks = callbacks
        self.engine = engine
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        cleanUp()
        errorBuffer.deallocate()
    }

    /// Checks and copies the request, configures the transfer, and queues it; returns the task handle at once.
    /// Anything wrong with the request fails here, synchronously, so that no callback is ever made.
    static func start(request: UnsafePointer<ip_load_request>?, callbacks: UnsafePointer<ip_load_callbacks>?,
                      settings: HTTPLoaderSettings) throws -> OpaquePointer {
        let request = try HTTPRequest(copying: request)
        let callbacks = try LoadCallbacks(copying: callbacks)
        let engine = try TransferEngine.engine(maxHostConnections: settings.maxHostConnections)
        let task = HTTPLoadTask(request: request, callbacks: callbacks, engine: engine)
        try task.configure()
        let handle = OpaqueHandle.retain(task)
        engine.submit(task)
        return handle
    }


    var isCancelRequested: Bool { cancelRequested.load(ordering: .relaxed) }

    /// Marks the task and wakes the engine, which removes the transfer at once. The write callback also checks
    /// the mark, so a transfer that is delivering data stops at its next chunk even before the engine looks.
    func cancel() {
        guard !cancelRequested.exchange(true, ordering: .relaxed) else { return }
        engine.cancel(self)
    }

    /// Creates the easy handle and sets every option from the request. Caller's thread, before the engine
    /// sees the task.
    private func configure() throws {
        guard let easy = curl_easy_init() else { throw PluginFailure(IP_STATUS_NO_MEMORY, "curl_easy_init failed") }
        self.easy = easy
        for line in request.headers {
            guard let list = curl_slist_append(headerList, line) else {
                throw PluginFailure(IP_STATUS_NO_MEMORY, "cannot allocate the request headers")
            }
            headerList = list
        }
        try EasyOptions.apply(to: easy, request: request, headers: headerList, errorBuffer: errorBuffer,
                              context: Unmanaged.passUnretained(self).toOpaque())
    }

    /// Frees the easy handle and the header list (after the handle, which reads the list until then).
    private func cleanUp() {
        if let easy { curl_easy_cleanup(easy) }
        easy = nil
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
    }

    /// Completes a transfer libcurl reported as done with `result`.
    func finish(result: CURLcode) {
        if result == CURLE_OK {
            // A body-less response (204, an empty 404) never reached the write callback: report it now.
            if !responded, !deliverResponse() {
                finish(stopReason ?? PluginFailure.cancelled)
                return
            }
            finish(nil)
        } else {
            finish(stopReason ?? CurlFailure.failure(for: result, task: self))
        }
    }

    /// The task's last act: frees libcurl's resources, then calls `complete` exactly once. Engine thread.
    /// Nothing touches the host's context after `complete`: the host may release the task while it returns.
    func finish(_ failure: PluginFailure?) {
        guard !finished else { return }
        finished = true
        cleanUp()
        if let failure {
            callbacks.complete(failure.status, failure.message)
        } else {
            callbacks.complete(ip_status(IP_STATUS_OK), "")
        }
    }
}
