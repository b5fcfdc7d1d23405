import PluginAPI
import Synchronization

/// The host side of one plugin load: collects the callbacks into bytes and resumes the waiting task once.
///
/// Lives until the loader's `complete` callback (retained through the C context pointer) and the awaiting task
/// both let go. `Sendable` through its Mutex: callbacks arrive on a loader thread.
final class LoadSession: Sendable {
    private struct State {
        var bytes: [UInt8] = []
        var expected: Int64 = -1
        var failure: (PluginStatus, String)?
        var continuation: CheckedContinuation<[UInt8], Error>?
        var finished = false
        var rejection: (PluginStatus, String)?
        var response: LoadResponse?
        /// Header lines of the final response (ABI 1.1 `header`), gathered before `response` arrives.
        var headers: [LoadResponse.Header] = []
        var nextSnapshot = 16 << 10

        /// The final outcome, moving the bytes out.
        mutating func result(url: String, loader: String) -> Result<[UInt8], Error> {
            if let (status, message) = failure {
                return .failure(status == .cancelled ? PipelineError.cancelled
                                : PipelineError.loadingFailed(url: url, loader: loader, status: status, message: message))
            }
            defer { bytes = [] }
            return .success(bytes)
        }
    }

    let url: String
    let loaderID: String
    let maxBytes: Int?
    let hooks: LoadHooks
    private let state = Mutex(State())

    init(url: String, loaderID: String, maxBytes: Int?, hooks: LoadHooks) {
        self.url = url
        self.loaderID = loaderID
        self.maxBytes = maxBytes
        self.hooks = hooks
    }

    func wait(_ continuation: CheckedContinuation<[UInt8], Error>) {
        let ready: Result<[UInt8], Error>? = state.withLock { s in
            if s.finished { return s.result(url: url, loader: loaderID) }
            s.continuation = continuation
            return nil
        }
        if let ready { continuation.resume(with: ready) }
    }

    /// Callbacks table pointing back at this session; the session is retained until `complete`.
    func callbacks() -> ip_load_callbacks {
        ip_load_callbacks(
            struct_size: UInt32(MemoryLayout<ip_load_callbacks>.size),
            context: Unmanaged.passRetained(self).toOpaque(),
            response: { context, status, expected, contentType, effectiveURL in
                guard let context else { return 1 }
                let session = Unmanaged<LoadSession>.fromOpaque(context).takeUnretainedValue()
                return session.response(statusCode: Int(status), expectedSize: expected < 0 ? nil : Int(expected),
                                        contentType: contentType.map { String(cString: $0) },
                                        effectiveURL: effectiveURL.map { String(cString: $0) })
            },
            data: { context, bytes, size in
                guard let context else { return 1 }
                let session = Unmanaged<LoadSession>.fromOpaque(context).takeUnretainedValue()
                return session.receive(UnsafeBufferPointer(start: bytes, count: bytes == nil ? 0 : size))
            },
            complete: { context, status, message in
                guard let context else { return }
                let session = Unmanaged<LoadSession>.fromOpaque(context).takeRetainedValue()
                session.complete(PluginStatus(abi: status), message.map { String(cString: $0) } ?? "")
            },
            header: { context, name, value in
                guard let context, let name else { return 1 }
                let session = Unmanaged<LoadSession>.fromOpaque(context).takeUnretainedValue()
                return session.header(String(cString: name), value.map { String(cString: $0) } ?? "")
            },
            redirect: { context, status, location in
                guard let context, let location else { return 1 }
                let session = Unmanaged<LoadSession>.fromOpaque(context).takeUnretainedValue()
                return session.redirect(statusCode: Int(status), to: String(cString: location))
            })
    }

    /// At most this many header lines and bytes of them are kept: an origin's headers are hostile input too.
    static let headerLimit = (lines: 200, bytes: 64 << 10)

    private func header(_ name: String, _ value: String) -> Int32 {
        state.withLock { s in
            let used = s.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
            guard s.headers.count < Self.headerLimit.lines, used + name.utf8.count + value.utf8.count <= Self.headerLimit.bytes else {
                s.rejection = (.limitExceeded, "the response has more than \(Self.headerLimit.lines) header lines or \(Self.headerLimit.bytes >> 10) KiB of them")
                return 1
            }
            s.headers.append(LoadResponse.Header(name: name, value: value))
            return 0
        }
    }

    /// The host's verdict on one redirect hop (ABI 1.1); without a hook every hop the loader would follow is fine.
    private func redirect(statusCode: Int, to target: String) -> Int32 {
        guard let approve = hooks.approveRedirect else { return 0 }
        if approve(statusCode, target) { return 0 }
        state.withLock { s in s.rejection = (.refused, "a redirect (HTTP \(statusCode)) to a source the policy does not allow was refused") }
        return 1
    }

    /// Releases the retain taken by `callbacks()` when the loader refused to start (no callback will come).
    func releaseUnstarted(_ callbacks: ip_load_callbacks) {
        if let context = callbacks.context { Unmanaged<LoadSession>.fromOpaque(context).release() }
    }

    private func response(statusCode: Int, expectedSize: Int?, contentType: String?, effectiveURL: String?) -> Int32 {
        let headers = state.withLock { $0.headers }
        let response = LoadResponse(statusCode: statusCode, expectedSize: expectedSize, contentType: contentType,
                                    effectiveURL: effectiveURL, headers: headers)
        // The host's validation runs outside the lock: it is caller code.
        var rejection: (PluginStatus, String)?
        do { try hooks.validateResponse(response) } catch let error as HTTPStatusError {
            rejection = (error.pluginStatus, "\(error)")
        } catch {
            rejection = (.unsupported, "response rejected: \(error)")
        }
        return state.withLock { s in
            s.response = response
            s.expected = Int64(response.expectedSize ?? -1)
            if let rejection { s.rejection = rejection; return 1 }
            if let maxBytes, let expected = response.expectedSize, expected > maxBytes {
                s.rejection = (.limitExceeded, "the body of \(expected) bytes exceeds the limit of \(maxBytes)")
                return 1
            }
            if let expected = response.expectedSize, expected > 0 { s.bytes.reserveCapacity(min(expected, 1 << 30)) }
            return 0
        }
    }

    private func receive(_ chunk: UnsafeBufferPointer<UInt8>) -> Int32 {
        let wantsSnapshots = hooks.snapshot != nil
        let progress: (Int, Int?, [UInt8]?)? = state.withLock { s in
            if let maxBytes, s.bytes.count + chunk.count > maxBytes {
                s.rejection = (.limitExceeded, "the body exceeds the limit of \(maxBytes) bytes")
                return nil
            }
            s.bytes.append(contentsOf: chunk)
            var snapshot: [UInt8]?
            if wantsSnapshots, s.bytes.count >= s.nextSnapshot, s.expected < 0 || s.bytes.count < Int(s.expected) {
                snapshot = s.bytes
                s.nextSnapshot = s.bytes.count * 3 / 2
            }
            return (s.bytes.count, s.expected >= 0 ? Int(s.expected) : nil, snapshot)
        }
        guard let progress else { return 1 }
        hooks.progress?(progress.0, progress.1)
        if let snapshot = progress.2 { hooks.snapshot?(snapshot) }
        return 0
    }

    /// The response the loader reported, once complete.
    var response: LoadResponse? { state.withLock { $0.response } }

    private func complete(_ status: PluginStatus, _ message: String) {
        let resume: (CheckedContinuation<[UInt8], Error>, Result<[UInt8], Error>)? = state.withLock { s in
            guard !s.finished else { return nil }
            s.finished = true
            if status != .ok { s.failure = s.rejection ?? (status, message) }
            guard let continuation = s.continuation else { return nil }
            s.continuation = nil
            return (continuation, s.result(url: url, loader: loaderID))
        }
        if let (continuation, result) = resume { continuation.resume(with: result) }
    }
}
