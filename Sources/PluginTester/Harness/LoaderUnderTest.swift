import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import PipelineHost
import PluginAPI
import Synchronization
import VersionedStructs

/// One loader of the plugin under test, driven through its C table: a load's callbacks are recorded with the
/// order rules of loader.h (response? → data* → complete, exactly once, last) checked as they arrive.
/// `@unchecked Sendable`: an immutable copy of a static C table; concurrent use is what THREAD_SAFE promises.
struct LoaderUnderTest: @unchecked Sendable {
    let table: LoaderEntryPoints
    let info: PluginDescription.Loader
    let callLimit: Double

    struct Result {
        var startStatus: Int32
        var startMessage: String
        var completion: (status: Int32, message: String)?
        var responseStatusCode: Int32?
        var expectedSize: Int64?
        var bytes: [UInt8]
        var problems: [String]
        var completed: Bool { completion != nil }
        var statusText: String {
            guard startStatus == IP_STATUS_OK else { return "start returned \(StatusName.of(startStatus)): \(startMessage)" }
            guard let completion else { return "did not complete" }
            return StatusName.of(completion.status) + (completion.message.isEmpty ? "" : ": \(completion.message)")
        }
    }

    /// What the callbacks saw; callbacks may arrive on any loader thread, so everything they change is behind
    /// `state`'s lock.
    final class Recorder: Sendable {
        struct State {
            var bytes: [UInt8] = []
            var responses = 0
            var responseCode: Int32?
            var expectedSize: Int64?
            var completions: [(Int32, String)] = []
            var problems: [String] = []
            var dataAfterComplete = false
        }
        let state = Mutex(State())
        let finished = DispatchSemaphore(value: 0)
        let firstData = DispatchSemaphore(value: 0)
        let rejectResponse: Bool
        let stopAfterBytes: Int?

        init(rejectResponse: Bool, stopAfterBytes: Int?) {
            self.rejectResponse = rejectResponse
            self.stopAfterBytes = stopAfterBytes
        }

        func problem(_ text: String) { state.withLock { if !$0.problems.contains(text) { $0.problems.append(text) } } }
    }

    /// Starts a load and waits for its completion (at most `wait` seconds); `cancel` cancels right after start
    /// (`.immediately`) or when the first data arrives (`.afterFirstData`).
    enum Cancellation { case none, immediately, afterFirstData }

    func load(_ url: String, maxBytes: UInt64 = 0, cancel: Cancellation = .none, rejectResponse: Bool = false,
              stopAfterBytes: Int? = nil, wait: Double = 20) -> Result {
        let recorder = Recorder(rejectResponse: rejectResponse, stopAfterBytes: stopAfterBytes)
        var callbacks = ip_load_callbacks(
            struct_size: UInt32(MemoryLayout<ip_load_callbacks>.size),
            context: Unmanaged.passUnretained(recorder).toOpaque(),
            response: { context, code, size, _, _ in
                let recorder = Unmanaged<Recorder>.fromOpaque(context!).takeUnretainedValue()
                recorder.state.withLock { state in
                    state.responses += 1
                    if state.responses > 1 { state.problems.append("response() was called \(state.responses) times (at most once)") }
                    if !state.bytes.isEmpty { state.problems.append("response() came after data()") }
                    if !state.completions.isEmpty { state.problems.append("response() came after complete()") }
                    state.responseCode = code
                    state.expectedSize = size
                }
                return recorder.rejectResponse ? 1 : 0
            },
            data: { context, bytes, size in
                let recorder = Unmanaged<Recorder>.fromOpaque(context!).takeUnretainedValue()
                let (first, stop) = recorder.state.withLock { state -> (Bool, Bool) in
                    if !state.completions.isEmpty { state.problems.append("data() came after complete()") }
                    let first = state.bytes.isEmpty && size > 0
                    if size > 0, let bytes { state.bytes += UnsafeBufferPointer(start: bytes, count: size) }
                    return (first, recorder.stopAfterBytes.map { state.bytes.count >= $0 } ?? false)
                }
                if first { recorder.firstData.signal() }
                return stop ? 1 : 0
            },
            complete: { context, status, message in
                let recorder = Unmanaged<Recorder>.fromOpaque(context!).takeUnretainedValue()
                let text = message.map { String(cString: $0) } ?? ""
                let count = recorder.state.withLock { state -> Int in
                    state.completions.append((status, text))
                    if state.completions.count > 1 { state.problems.append("complete() was called \(state.completions.count) times (exactly once)") }
                    if !StatusName.isKnown(status) { state.problems.append("complete() with \(status), not an ip_status code") }
                    return state.completions.count
                }
                if count == 1 { recorder.finished.signal() }
            },
            header: { context, name, _ in
                // ABI 1.1: header lines describe the final response, so they come before response() and data().
                let recorder = Unmanaged<Recorder>.fromOpaque(context!).takeUnretainedValue()
                recorder.state.withLock { state in
                    if name == nil { state.problems.append("header() with a NULL name") }
                    if state.responses > 0 || !state.bytes.isEmpty || !state.completions.isEmpty {
                        state.problems.append("header() came after response(), data() or complete()")
                    }
                }
                return 0
            },
            redirect: nil)
        var task: OpaquePointer?
        var message = [CChar](repeating: 0, count: 1024)
        // ABI 1.1: an instance with the defaults (a 1.0 loader is its own instance); kept until the task is released.
        let (openStatus, instance) = message.withUnsafeMutableBufferPointer { m in
            Watchdog.guarding("loader open", limit: callLimit) {
                table.open(configuration: "", message: ip_message(buffer: m.baseAddress, capacity: m.count))
            }
        }
        guard let instance else {
            return Result(startStatus: openStatus, startMessage: "open: " + ABICopy.text(message), completion: nil, bytes: [], problems: [])
        }
        defer { withExtendedLifetime(instance) {} }
        let startStatus = url.withCString { urlPointer in
            var request = ip_load_request(struct_size: UInt32(MemoryLayout<ip_load_request>.size), url: urlPointer, headers: nil,
                                          max_bytes: maxBytes, timeout_ms: 15000, connect_timeout_ms: 5000, max_redirects: 0,
                                          flags: 0, first_byte_timeout_ms: 0)
            return message.withUnsafeMutableBufferPointer { m in
                Watchdog.guarding("loader start \(url)", limit: callLimit) {
                    instance.start(&request, &callbacks, &task, ip_message(buffer: m.baseAddress, capacity: m.count))
                }
            }
        }
        var result = Result(startStatus: startStatus, startMessage: ABICopy.text(message), completion: nil, bytes: [], problems: [])
        if startStatus == IP_STATUS_OK {
            switch cancel {
            case .none: break
            case .immediately:
                Watchdog.guarding("loader cancel right after start", limit: callLimit) { table.table.cancel(task) }
            case .afterFirstData:
                if recorder.firstData.wait(timeout: .now() + wait) == .success {
                    Watchdog.guarding("loader cancel after the first data", limit: callLimit) { table.table.cancel(task) }
                }
            }
            if recorder.finished.wait(timeout: .now() + wait) == .timedOut {
                result.problems.append("did not call complete() within \(Int(wait)) s")
                // A late completion would call into a freed recorder: keep it alive for the process.
                _ = Unmanaged.passRetained(recorder)
                return result
            }
            // Late callbacks after complete() are a bug: give them a moment to show up.
            usleep(50_000)
            Watchdog.guarding("loader release", limit: callLimit) { table.table.release(task) }
        } else {
            usleep(50_000)
            if recorder.state.withLock({ !$0.completions.isEmpty || $0.responses > 0 || !$0.bytes.isEmpty }) {
                result.problems.append("start() returned \(StatusName.of(startStatus)) but callbacks were still called")
            }
        }
        recorder.state.withLock { state in
            result.completion = state.completions.first.map { (status: $0.0, message: $0.1) }
            result.responseStatusCode = state.responseCode
            result.expectedSize = state.expectedSize
            result.bytes = state.bytes
            result.problems += state.problems
            if let completion = state.completions.first, completion.0 != IP_STATUS_OK, completion.1.isEmpty {
                result.problems.append("complete(\(StatusName.of(completion.0))) without a message")
            }
        }
        return result
    }
}

/// One cache of the plugin under test, through its C table.
/// `@unchecked Sendable`: an immutable copy of a static C table; concurrent use is what THREAD_SAFE promises.
struct CacheUnderTest: @unchecked Sendable {
    let table: CacheEntryPoints
    let info: PluginDescription.Cache
    let callLimit: Double

    final class Sink { var bytes: [UInt8] = [] }

    func open(_ configuration: String?) -> (status: Int32, message: String, store: OpaquePointer?) {
        var store: OpaquePointer?
        var message = [CChar](repeating: 0, count: 1024)
        let status = message.withUnsafeMutableBufferPointer { m in
            Watchdog.guarding("cache open(\(configuration ?? "NULL"))", limit: callLimit) {
                if let configuration {
                    return configuration.withCString { table.open?($0, &store, ip_message(buffer: m.baseAddress, capacity: m.count)) }
                        ?? Int32(IP_STATUS_INTERNAL)
                }
                return table.open?(nil, &store, ip_message(buffer: m.baseAddress, capacity: m.count)) ?? Int32(IP_STATUS_INTERNAL)
            }
        }
        return (status, ABICopy.text(message), store)
    }

    func put(_ store: OpaquePointer?, _ key: String, _ value: [UInt8]) -> Int32 {
        var message = [CChar](repeating: 0, count: 1024)
        return message.withUnsafeMutableBufferPointer { m in
            Watchdog.guarding("cache put \(key.prefix(40)) (\(value.count) bytes)", limit: callLimit) {
                value.withUnsafeBufferPointer { bytes in
                    key.withCString { table.table.put(store, $0, bytes.baseAddress, bytes.count, ip_message(buffer: m.baseAddress, capacity: m.count)) }
                }
            }
        }
    }

    func get(_ store: OpaquePointer?, _ key: String) -> (status: Int32, bytes: [UInt8]) {
        let sink = Sink()
        var byteSink = ip_byte_sink(struct_size: UInt32(MemoryLayout<ip_byte_sink>.size), context: Unmanaged.passUnretained(sink).toOpaque(),
                                    write: { context, data, size in
            let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
            if size > 0, let data { sink.bytes += UnsafeBufferPointer(start: data, count: size) }
            return ip_status(IP_STATUS_OK)
        })
        var message = [CChar](repeating: 0, count: 1024)
        let status = message.withUnsafeMutableBufferPointer { m in
            Watchdog.guarding("cache get \(key.prefix(40))", limit: callLimit) {
                key.withCString { table.table.get(store, $0, &byteSink, ip_message(buffer: m.baseAddress, capacity: m.count)) }
            }
        }
        return (status, sink.bytes)
    }

    func remove(_ store: OpaquePointer?, _ key: String) -> Int32 {
        var message = [CChar](repeating: 0, count: 1024)
        return message.withUnsafeMutableBufferPointer { m in
            Watchdog.guarding("cache remove \(key.prefix(40))", limit: callLimit) {
                key.withCString { table.table.remove(store, $0, ip_message(buffer: m.baseAddress, capacity: m.count)) }
            }
        }
    }

    func clear(_ store: OpaquePointer?) -> Int32? {
        guard let clear = table.table.clear else { return nil }
        var message = [CChar](repeating: 0, count: 1024)
        return message.withUnsafeMutableBufferPointer { m in
            Watchdog.guarding("cache clear", limit: callLimit) { clear(store, ip_message(buffer: m.baseAddress, capacity: m.count)) }
        }
    }

    func close(_ store: OpaquePointer?) {
        Watchdog.guarding("cache close", limit: callLimit) { table.table.close(store) }
    }
}
