#if canImport(Glibc)
import Glibc
#endif
import CCurl
import PluginAPI
import PluginKit
import Synchronization

/// The one curl multi handle of this plugin and the thread that drives it.
///
/// Every transfer of the process (per copy of the plugin) runs on this thread, so connections, TLS sessions and
/// HTTP/2 streams are shared between loads, and every libcurl and host callback happens on one thread, in order.
/// Other threads only hand work over: `submit` and `cancel` queue a task under a lock and wake the loop with
/// `curl_multi_wakeup` (the one multi call documented as safe from another thread).
///
/// There is one engine per connection limit an instance of the loader was opened with (`HTTPLoaderSettings`):
/// instances that agree share connections; in practice a process has one. An engine's thread is created on its
/// first load and lives for the process, as the plugin does (plugins are never unloaded); when idle it sleeps in
/// `curl_multi_poll`.
///
/// `@unchecked Sendable`: `multi` and `active` are touched only by the engine thread (after `init` returns);
/// the cross-thread queue is a `Mutex`.
final class TransferEngine: @unchecked Sendable {
    /// The engines by connection limit, each made by its first load. A failure (libcurl could not start) is kept
    /// and rethrown each time.
    private static let engines = Mutex<[Int: Result<TransferEngine, any Error>]>([:])

    static func engine(maxHostConnections: Int) throws -> TransferEngine {
        try engines.withLock { engines in
            if let engine = engines[maxHostConnections] { return engine }
            let made = Result { try TransferEngine(maxHostConnections: maxHostConnections) }
            engines[maxHostConnections] = made
            return made
        }.get()
    }

    private struct Inbox {
        var started: [HTTPLoadTask] = []
        var cancelled: [HTTPLoadTask] = []
    }

    private let multi: UnsafeMutableRawPointer
    private let inbox = Mutex(Inbox())
    /// Transfers added to the multi handle, by task identity. Engine thread only.
    private var active: [ObjectIdentifier: HTTPLoadTask] = [:]
    let maxHostConnections: Int

    private init(maxHostConnections: Int) throws {
        try CurlGlobal.ensure()
        guard let multi = curl_multi_init() else { throw PluginFailure(IP_STATUS_NO_MEMORY, "curl_multi_init failed") }
        self.multi = multi
        self.maxHostConnections = maxHostConnections
        // Transfers beyond the limit wait inside libcurl for a free connection; HTTP/2 multiplexes many
        // transfers over one connection, so the limit counts connections, not transfers.
        _ = ip_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maxHostConnections)
        _ = ip_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        // Idle connections kept for reuse. libcurl's default (4 × the transfers in flight) shrinks to 4 as a
        // burst drains, so a burst's connections would be closed just before the next burst could reuse them.
        _ = ip_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(4 * maxHostConnections, 24))
        try startThread()
    }

    /// Queues a configured task; the engine thread adds it to the multi handle.
    func submit(_ task: HTTPLoadTask) {
        inbox.withLock { $0.started.append(task) }
        curl_multi_wakeup(multi)
    }

    /// Queues a cancellation; the engine thread stops the transfer and completes it with CANCELLED.
    func cancel(_ task: HTTPLoadTask) {
        inbox.withLock { $0.cancelled.append(task) }
        curl_multi_wakeup(multi)
    }

    private func startThread() throws {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, nil, { context in
            let engine = Unmanaged<TransferEngine>.fromOpaque(context!).takeRetainedValue()
            engine.run()
        }, context)
        guard status == 0 else {
            Unmanaged<TransferEngine>.fromOpaque(context).release()
            throw PluginFailure.internalError("cannot start the HTTP transfer thread: error \(status)")
        }
        pthread_detach(thread)
    }

    /// The loop: take new work, let libcurl move every transfer forward, finish the ones that are done, sleep
    /// until a socket is ready, a libcurl timer fires, or another thread wakes us.
    private func run() -> Never {
        while true {
            let work = inbox.withLock { inbox in
                defer { inbox = Inbox() }
                return inbox
            }
            for task in work.started { add(task) }
            for task in work.cancelled { stop(task) }
            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            finishDone()
            let nextDeadline = enforceFirstByteDeadlines()
            // With transfers in flight libcurl shortens the wait to its own next timer; idle, sleep long.
            _ = curl_multi_poll(multi, nil, 0, active.isEmpty ? 60_000 : min(1_000, nextDeadline), nil)
        }
    }

    private func add(_ task: HTTPLoadTask) {
        if task.isCancelRequested {
            task.finish(PluginFailure.cancelled)
            return
        }
        let added = curl_multi_add_handle(multi, task.easy)
        guard added == CURLM_OK else {
            task.finish(PluginFailure.internalError(
                "cannot start the transfer: " + String(cString: curl_multi_strerror(added))))
            return
        }
        task.startedAt = Self.now()
        active[ObjectIdentifier(task)] = task
    }

    /// Stops every transfer whose server has not begun to answer within its first-byte timeout (libcurl has no
    /// such deadline: its low-speed limit also fires on slow bodies, and its total timeout is much longer); returns
    /// the milliseconds until the nearest remaining deadline.
    private func enforceFirstByteDeadlines() -> Int32 {
        let now = Self.now()
        var nearest: UInt64 = 1_000
        for task in active.values where !task.headersBegan {
            let deadline = task.startedAt + UInt64(task.request.firstByteTimeoutMilliseconds) * 1_000_000
            if now >= deadline {
                active.removeValue(forKey: ObjectIdentifier(task))
                if let easy = task.easy { curl_multi_remove_handle(multi, easy) }
                task.finish(PluginFailure(IP_STATUS_IO, "no response from the server within \(task.request.firstByteTimeoutMilliseconds) ms "
                                          + "of the request (first-byte timeout)"))
            } else {
                nearest = min(nearest, (deadline - now) / 1_000_000 + 1)
            }
        }
        return Int32(nearest)
    }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// A cancel for a task that already finished (or was never added) is ignored: it completed already.
    private func stop(_ task: HTTPLoadTask) {
        guard active.removeValue(forKey: ObjectIdentifier(task)) != nil else { return }
        curl_multi_remove_handle(multi, task.easy)
        task.finish(PluginFailure.cancelled)
    }

    /// Completes every transfer libcurl reports as done. The message is read before the handle is removed:
    /// removing it frees the message.
    private func finishDone() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let result = ip_curl_msg_result(message)
            var context: UnsafeMutableRawPointer?
            _ = ip_curl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &context)
            curl_multi_remove_handle(multi, easy)
            guard let context else { continue }
            let task = Unmanaged<HTTPLoadTask>.fromOpaque(context).takeUnretainedValue()
            guard active.removeValue(forKey: ObjectIdentifier(task)) != nil else { continue }
            task.finish(result: result)
        }
    }
}
