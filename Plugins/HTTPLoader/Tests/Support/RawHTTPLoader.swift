import Foundation
import PluginAPI
import Synchronization
import TestSupport

/// Drives libHTTPLoader.so through the C ABI directly, recording every callback.
///
/// The host's `LoadersManager.load` returns only bytes; the HTTP status code, content type, expected size and
/// effective URL reach the host through `response()`, and the callback order is part of the contract, so these
/// tests watch the raw callbacks. The plugin is a private copy (PluginSandbox), opened with RTLD_NODELETE
/// like the host does, and never closed.
final class RawHTTPLoader: Sendable {
    // The vtable is immutable static data inside the (never unloaded) plugin.
    nonisolated(unsafe) private let loader: UnsafePointer<ip_loader>
    /// The loader's instance with the default configuration (ABI 1.1 open), kept for the process.
    nonisolated(unsafe) private let instance: OpaquePointer?

    init() throws {
        let folder = try PluginSandbox.directory(with: ["libHTTPLoader.so"])
        guard let library = dlopen(folder + "/libHTTPLoader.so", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            throw TestSupportError("dlopen failed: \(String(cString: dlerror()))")
        }
        guard let symbol = dlsym(library, "imagepipe_plugin_entry") else {
            throw TestSupportError("no imagepipe_plugin_entry")
        }
        typealias EntryFunction = @convention(c) () -> UnsafePointer<ip_plugin_entry>
        let entry = unsafeBitCast(symbol, to: EntryFunction.self)().pointee
        var minor: UInt32 = 0
        var text = [CChar](repeating: 0, count: 256)
        let status = text.withUnsafeMutableBufferPointer { buffer in
            entry.`init`?(nil, folder + "/libHTTPLoader.so", UInt32(IP_ABI_MINOR), &minor, ip_message(buffer: buffer.baseAddress, capacity: buffer.count))
                ?? ip_status(IP_STATUS_OK)
        }
        guard status == IP_STATUS_OK else { throw TestSupportError("init failed: \(cText(text))") }
        guard let raw = entry.get_factory?(IP_LOADER_FACTORY_ID) else { throw TestSupportError("no loader factory") }
        let factory = raw.assumingMemoryBound(to: ip_loader_factory.self).pointee
        guard factory.loader_count == 1, let first = factory.loaders[0] else { throw TestSupportError("expected one loader") }
        loader = first
        var opened: OpaquePointer?
        let openStatus = text.withUnsafeMutableBufferPointer { buffer in
            first.pointee.open?(first, nil, &opened, ip_message(buffer: buffer.baseAddress, capacity: buffer.count)) ?? ip_status(IP_STATUS_INTERNAL)
        }
        guard openStatus == IP_STATUS_OK else { throw TestSupportError("open failed: \(cText(text))") }
        instance = opened
    }

    var descriptor: ip_loader_descriptor { loader.pointee.descriptor.pointee }

    /// Starts a load; the recording holds the events. Throws with the status when start() refuses.
    func start(_ url: String, headers: [String] = [], maxBytes: UInt64 = 0, timeoutMilliseconds: UInt32 = 0,
               maxRedirects: UInt32 = 0, flags: UInt32 = 0, firstByteTimeoutMilliseconds: UInt32 = 0,
               recording: Recording = Recording()) throws -> RunningLoad {
        var callbacks = ip_load_callbacks(
            struct_size: UInt32(MemoryLayout<ip_load_callbacks>.size),
            context: Unmanaged.passRetained(recording).toOpaque(),
            response: { context, status, expected, contentType, url in
                Recording.from(context).response(status, expected, contentType.map { String(cString: $0) },
                                                 url.map { String(cString: $0) })
            },
            data: { context, bytes, size in
                Recording.from(context).data(UnsafeBufferPointer(start: bytes, count: size))
            },
            complete: { context, status, message in
                let recording = Unmanaged<Recording>.fromOpaque(context!).takeRetainedValue()
                recording.complete(status, message.map { String(cString: $0) } ?? "")
            },
            header: nil, redirect: nil)
        var text = [CChar](repeating: 0, count: 512)
        var task: OpaquePointer?
        let copies = headers.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var list: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
        let status = url.withCString { cURL in
            list.withUnsafeMutableBufferPointer { headerList in
                text.withUnsafeMutableBufferPointer { buffer in
                    var request = ip_load_request(
                        struct_size: UInt32(MemoryLayout<ip_load_request>.size), url: cURL,
                        headers: headers.isEmpty ? nil : UnsafePointer(headerList.baseAddress), max_bytes: maxBytes,
                        timeout_ms: timeoutMilliseconds, connect_timeout_ms: 0, max_redirects: maxRedirects,
                        flags: flags, first_byte_timeout_ms: firstByteTimeoutMilliseconds)
                    return loader.pointee.start2(instance, &request, &callbacks, &task,
                                                 ip_message(buffer: buffer.baseAddress, capacity: buffer.count))
                }
            }
        }
        guard status == IP_STATUS_OK else {
            Unmanaged<Recording>.fromOpaque(callbacks.context).release()
            throw RefusedStart(status: status, message: cText(text))
        }
        return RunningLoad(loader: loader, task: task, recording: recording)
    }

    /// Loads `url` to the end and returns what happened.
    func load(_ url: String, headers: [String] = [], maxBytes: UInt64 = 0, timeoutMilliseconds: UInt32 = 0,
              maxRedirects: UInt32 = 0, recording: Recording = Recording()) throws -> Recording.Outcome {
        let running = try start(url, headers: headers, maxBytes: maxBytes, timeoutMilliseconds: timeoutMilliseconds,
                                maxRedirects: maxRedirects, recording: recording)
        return running.wait()
    }
}

/// The NUL-terminated text in a message buffer.
private func cText(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

struct RefusedStart: Error {
    let status: ip_status
    let message: String
}

/// A started load: wait for its end, or cancel it. Releases the task after complete, as the host does.
final class RunningLoad: @unchecked Sendable {
    // Immutable after init; the task pointer goes back only to the plugin that made it.
    private let loader: UnsafePointer<ip_loader>
    private let task: OpaquePointer?
    let recording: Recording

    init(loader: UnsafePointer<ip_loader>, task: OpaquePointer?, recording: Recording) {
        self.loader = loader
        self.task = task
        self.recording = recording
    }

    func cancel() { loader.pointee.cancel(task) }

    /// Blocks until complete() (at most 60 s, a guard against a hang rather than a timing assertion), then releases.
    func wait() -> Recording.Outcome {
        let finished = recording.done.wait(timeout: .now() + 60) == .success
        if finished { loader.pointee.release(task) }
        return recording.outcome(finished: finished)
    }
}

/// Everything the loader reported for one load, in order.
final class Recording: Sendable {
    enum Event: Equatable {
        case response(status: Int32, expected: Int64, contentType: String?, url: String?)
        case data(Int)
        case complete(status: ip_status, message: String)
    }

    struct Outcome {
        var events: [Event]
        var body: [UInt8]
        /// False when complete() never came (the wait gave up).
        var finished: Bool

        var status: ip_status? {
            for case .complete(let status, _) in events { return status }
            return nil
        }
        var message: String {
            for case .complete(_, let message) in events { return message }
            return ""
        }
        var response: (status: Int32, expected: Int64, contentType: String?, url: String?)? {
            for case .response(let status, let expected, let type, let url) in events { return (status, expected, type, url) }
            return nil
        }
        /// response? → data* → complete, complete exactly once.
        var followsContract: Bool {
            let kinds = events.map { event -> Character in
                switch event {
                case .response: "r"
                case .data: "d"
                case .complete: "c"
                }
            }
            let text = String(kinds)
            return text.wholeMatch(of: /r?d*c/) != nil && !(text.contains("d") && !text.hasPrefix("r"))
        }
    }

    private struct State {
        var events: [Event] = []
        var body: [UInt8] = []
    }

    private let state = Mutex(State())
    let done = DispatchSemaphore(value: 0)
    /// What the callbacks answer: reject the response, or stop after this many body bytes.
    let rejectResponse: Bool
    let stopAfterBytes: Int?
    /// Called on the loader thread with each chunk (e.g. to cancel mid-body).
    let onData: (@Sendable (Int) -> Void)?

    init(rejectResponse: Bool = false, stopAfterBytes: Int? = nil, onData: (@Sendable (Int) -> Void)? = nil) {
        self.rejectResponse = rejectResponse
        self.stopAfterBytes = stopAfterBytes
        self.onData = onData
    }

    static func from(_ context: UnsafeMutableRawPointer?) -> Recording {
        Unmanaged<Recording>.fromOpaque(context!).takeUnretainedValue()
    }

    func response(_ status: Int32, _ expected: Int64, _ contentType: String?, _ url: String?) -> Int32 {
        state.withLock { $0.events.append(.response(status: status, expected: expected, contentType: contentType, url: url)) }
        return rejectResponse ? 1 : 0
    }

    func data(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        let total = state.withLock { state in
            state.events.append(.data(bytes.count))
            state.body.append(contentsOf: bytes)
            return state.body.count
        }
        onData?(total)
        if let stopAfterBytes, total >= stopAfterBytes { return 1 }
        return 0
    }

    func complete(_ status: ip_status, _ message: String) {
        state.withLock { $0.events.append(.complete(status: status, message: message)) }
        done.signal()
    }

    func outcome(finished: Bool) -> Outcome {
        state.withLock { Outcome(events: $0.events, body: $0.body, finished: finished) }
    }
}
