import CCurl
import CS3Curl
import PluginAPI
import PluginKit
import S3Client
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One GET of an object: a thread of its own runs the attempts (libcurl's easy interface over the process's shared
/// connections), so a retry's backoff blocks no other load, and the host's callbacks come from that one thread, one
/// at a time, as loader.h asks.
///
/// Why a thread per load rather than HTTPLoader's multi-handle engine: a load here is a short signed request with
/// retries and an error body to read, and sharing the engine would mean sharing HTTPLoader's code across plugins;
/// the process's share keeps DNS answers and TLS sessions to the store (not connections: CS3Curl's header says why).
///
/// Retries: an answer the store marks as its own trouble (5xx, SlowDown) or a failed connection is tried again,
/// up to `max-attempts`, after a jittered exponential backoff, within the request's deadline, and only while nothing
/// has reached the host (a body half delivered is not restarted).
///
/// `@unchecked Sendable`: after `start`, every mutable field is touched only by the task's thread; `cancel` sets
/// the atomic flag, which the transfer's callbacks and the backoff check.
final class S3LoadTask: @unchecked Sendable {
    let location: S3Location
    let settings: S3Settings
    let callbacks: LoadCallbacks
    let request: S3Request
    private let cancelRequested = Atomic<Bool>(false)

    /// The current attempt's answer, from the header and write callbacks.
    var status = 0
    var headers: [(name: String, value: String)] = []
    var responded = false
    var delivered: UInt64 = 0
    var errorBody: [UInt8] = []
    var stopReason: PluginFailure?
    var attemptStarted: UInt64 = 0

    private init(location: S3Location, settings: S3Settings, callbacks: LoadCallbacks, request: S3Request) {
        self.location = location
        self.settings = settings
        self.callbacks = callbacks
        self.request = request
    }

    /// Checks and copies the request and starts the task's thread; anything wrong fails here, before any callback.
    static func start(request: UnsafePointer<ip_load_request>?, callbacks: UnsafePointer<ip_load_callbacks>?,
                      settings: S3Settings) throws -> OpaquePointer {
        try S3Curl.ensureInitialised()
        let copied = try S3Request(copying: request)
        let location = try S3Location(parsing: copied.url)
        let task = S3LoadTask(location: location, settings: settings, callbacks: try LoadCallbacks(copying: callbacks), request: copied)
        let handle = OpaqueHandle.retain(task)
        let running = Unmanaged.passRetained(task).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        defer { pthread_attr_destroy(&attributes) }
        var thread = pthread_t()
        let started = pthread_create(&thread, &attributes, { context in
            guard let context else { return nil }
            Unmanaged<S3LoadTask>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, running)
        guard started == 0 else {
            Unmanaged<S3LoadTask>.fromOpaque(running).release()
            OpaqueHandle.release(handle, as: S3LoadTask.self)
            throw PluginFailure(IP_STATUS_NO_MEMORY, "cannot start a thread for the load (\(String(cString: strerror(started))))")
        }
        return handle
    }

    var isCancelRequested: Bool { cancelRequested.load(ordering: .relaxed) }

    func cancel() { cancelRequested.store(true, ordering: .relaxed) }

    // MARK: Attempts

    enum Outcome {
        case done
        case failed(PluginFailure)
        /// Worth another attempt (the store's trouble, or no connection); the failure to report if none is left.
        case retry(PluginFailure)
    }

    private func run() {
        let deadline = S3Curl.nowMilliseconds() + UInt64(request.timeoutMilliseconds)
        var attempt = 1
        while true {
            let remaining = deadline > S3Curl.nowMilliseconds() ? deadline - S3Curl.nowMilliseconds() : 0
            let outcome: Outcome = remaining == 0
                ? .failed(.io("timed out after \(request.timeoutMilliseconds) ms (\(attempt - 1) attempts)"))
                : perform(remainingMilliseconds: remaining, attempt: attempt)
            switch outcome {
            case .done:
                return callbacks.complete(ip_status(IP_STATUS_OK), "")
            case .failed(let failure):
                return callbacks.complete(failure.status, failure.message)
            case .retry(let failure):
                let pause = backoff(after: attempt)
                let left = deadline > S3Curl.nowMilliseconds() ? deadline - S3Curl.nowMilliseconds() : 0
                guard attempt < settings.maxAttempts, !isCancelRequested, pause < left else {
                    return callbacks.complete(failure.status, failure.message + (attempt > 1 ? " (after \(attempt) attempts)" : ""))
                }
                guard sleep(milliseconds: pause) else { return callbacks.complete(ip_status(IP_STATUS_CANCELLED), "cancelled") }
                attempt += 1
            }
        }
    }

    /// Full jitter (AWS's recommendation): a random pause up to base × 2^(attempt-1), at least a millisecond.
    private func backoff(after attempt: Int) -> UInt64 {
        let ceiling = UInt64(settings.retryBaseMilliseconds) << UInt64(min(attempt - 1, 10))
        return max(1, UInt64.random(in: ceiling / 2...ceiling))
    }

    /// Sleeps in short steps so a cancel ends the wait; false when cancelled.
    private func sleep(milliseconds: UInt64) -> Bool {
        let until = S3Curl.nowMilliseconds() + milliseconds
        while S3Curl.nowMilliseconds() < until {
            if isCancelRequested { return false }
            usleep(UInt32(min(10, until - S3Curl.nowMilliseconds())) * 1000)
        }
        return !isCancelRequested
    }

    /// One GET. The answer is classified after the transfer: a 2xx was streamed to the host as it came; a 304
    /// (the host's conditional request) is reported with its headers; an error body is read and mapped.
    private func perform(remainingMilliseconds: UInt64, attempt: Int) -> Outcome {
        status = 0
        headers = []
        errorBody = []
        stopReason = nil
        attemptStarted = S3Curl.nowMilliseconds()
        let transfer: S3Transfer
        do {
            transfer = try S3Transfer(task: self, remainingMilliseconds: remainingMilliseconds)
        } catch let failure as PluginFailure {
            return .failed(failure)
        } catch {
            return .failed(.internalError("\(error)"))
        }
        let result = transfer.perform()
        if isCancelRequested { return .failed(PluginFailure(IP_STATUS_CANCELLED, "cancelled")) }
        if let stopReason { return .failed(stopReason) }
        guard result == CURLE_OK else {
            let failure = transfer.failure(for: result)
            // Nothing reached the host and the store may answer next time: a refused or reset connection, a timeout.
            return responded ? .failed(failure) : .retry(failure)
        }
        if (200..<300).contains(status) || status == 304 {
            if !responded, !deliverResponse() { return .failed(stopReason ?? PluginFailure(IP_STATUS_CANCELLED, "the host rejected the response")) }
            return .done
        }
        let answer = S3ErrorAnswer(httpStatus: status, body: errorBody, bucketRegion: header("x-amz-bucket-region"))
        let failure = answer.failure(for: location, settings: settings, attempts: attempt)
        return answer.isRetryable ? .retry(failure) : .failed(failure)
    }

    // MARK: What the transfer's callbacks do (the task's thread)

    /// The last value of a response header (case-insensitive name).
    func header(_ name: String) -> String? {
        headers.last { $0.name.lowercased() == name }?.value
    }

    /// Headers, then the response, once per load: before the first body byte or at the end of a body-less answer.
    func deliverResponse() -> Bool {
        responded = true
        for (name, value) in headers where !callbacks.header(name: name, value: value) {
            stopReason = PluginFailure(IP_STATUS_CANCELLED, "the host rejected the response")
            return false
        }
        let length = header("content-length").flatMap { Int64($0) } ?? -1
        if request.maxBytes > 0, status != 304, length > 0, UInt64(length) > request.maxBytes {
            stopReason = .limitExceeded("s3://\(location.bucket)/\(location.key) holds \(length) bytes, over the limit of \(request.maxBytes)")
            return false
        }
        let type = header("content-type")
        let accepted = withOptionalCString(type) {
            callbacks.response(statusCode: Int32(status), expectedSize: status == 304 ? 0 : length, contentType: $0, effectiveURL: nil)
        }
        if !accepted { stopReason = PluginFailure(IP_STATUS_CANCELLED, "the host rejected the response") }
        return accepted
    }

    /// Body bytes: streamed to the host for a 2xx, kept (bounded) for an error answer. False stops the transfer.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if isCancelRequested { return false }
        guard (200..<300).contains(status) else {
            if errorBody.count < 64 << 10 { errorBody += bytes.prefix(64 << 10 - errorBody.count) }
            return true
        }
        if !responded, !deliverResponse() { return false }
        delivered += UInt64(bytes.count)
        if request.maxBytes > 0, delivered > request.maxBytes {
            stopReason = .limitExceeded("s3://\(location.bucket)/\(location.key) is larger than the limit of \(request.maxBytes) bytes")
            return false
        }
        if !callbacks.data(bytes) {
            stopReason = PluginFailure(IP_STATUS_CANCELLED, "the host stopped the transfer")
            return false
        }
        return true
    }

    /// One header line ("HTTP/1.1 200 OK" starts a response: an interim 100 is forgotten at the next status line).
    func receiveHeader(_ line: String) {
        if line.hasPrefix("HTTP/") {
            let parts = line.split(separator: " ", maxSplits: 2)
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            headers = []
            return
        }
        // The blank line ending the headers has no colon and is passed over like any other line without one.
        let trimmed = line.trimmingLineEnd
        guard headers.count < 256, let colon = trimmed.firstIndex(of: ":") else { return }
        let name = String(trimmed[..<colon])
        var value = trimmed[trimmed.index(after: colon)...]
        while value.first == " " || value.first == "\t" { value.removeFirst() }
        while value.last == " " || value.last == "\t" { value.removeLast() }
        headers.append((name, String(value)))
    }

    /// Whether to stop now: a cancel, or no answer within the first-byte deadline. Called often by libcurl.
    func shouldAbort() -> Bool {
        if isCancelRequested { return true }
        if status == 0, S3Curl.nowMilliseconds() - attemptStarted > UInt64(request.firstByteTimeoutMilliseconds) {
            stopReason = .io("the store at \(settings.endpoint?.authority ?? "AWS") sent no answer within \(request.firstByteTimeoutMilliseconds) ms")
            return true
        }
        return false
    }
}

private func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}

extension StringProtocol {
    fileprivate var trimmingLineEnd: Substring {
        var slice = Substring(self)
        // "\r\n" is one Character in Swift: isNewline covers it, "\n" and "\r".
        while let last = slice.last, last.isNewline { slice.removeLast() }
        return slice
    }
}

extension S3LoadTask: LoadTask {}

extension S3LoadTask {
    static func settings(from configuration: LoaderConfiguration) throws -> S3Settings {
        try S3Settings(configuration)
    }
}
