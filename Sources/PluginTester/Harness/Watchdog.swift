import PipelineHost
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The check child's own watchdog: one plugin call that runs longer than its limit ends the check as "timed out"
/// with the call named, at once, instead of waiting for the parent's whole-check timeout.
///
/// The parent still kills the child at its own deadline (the child may be stuck somewhere the watchdog does not
/// see), and `alarm` is a last resort should the parent itself be gone.
enum Watchdog {
    private struct Watch {
        var label: String
        var deadline: Double
        var limit: Double
    }

    /// Watches in progress by token: calls may run on several threads at once (concurrency checks).
    private static let watches = Mutex<(next: Int, active: [Int: Watch])>((0, [:]))
    private static let started = Atomic<Bool>(false)

    /// The limit of one plugin call (`--call-timeout`), set once by the check child before any check runs.
    /// `nonisolated(unsafe)`: written before any thread of the check starts, read-only afterwards.
    nonisolated(unsafe) static var callLimit: Double = 10

    /// Starts the watching thread (once): a plain pthread, because Dispatch would set up its own descriptors
    /// (timerfd, epoll) lazily, later, where the global-state check would blame them on the plugin.
    static func start() {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        var thread = pthread_t()
        pthread_create(&thread, nil, { _ in Watchdog.watch() }, nil)
        pthread_detach(thread)
    }

    private static func watch() -> Never {
        while true {
            usleep(50_000)
            let now = ChildProcess.now()
            let expired = watches.withLock { state in state.active.values.first { now > $0.deadline } }
            if let expired {
                let message = "a single plugin call did not return within \(format(expired)): \(expired.label)"
                CheckChannel.send("result", CheckResult(status: .timedOut, message: message, during: expired.label).json)
                _exit(4)
            }
        }
    }

    private static func format(_ watch: Watch) -> String {
        watch.limit == watch.limit.rounded() ? "\(Int(watch.limit)) s" : "\(watch.limit) s"
    }

    /// Runs `body` (one plugin call or a short group of them) under a time limit in seconds.
    static func guarding<R>(_ label: String, limit: Double, _ body: () throws -> R) rethrows -> R {
        CheckChannel.progress(label)
        let token = watches.withLock { state -> Int in
            state.next += 1
            state.active[state.next] = Watch(label: label, deadline: ChildProcess.now() + limit, limit: limit)
            return state.next
        }
        defer { _ = watches.withLock { $0.active.removeValue(forKey: token) } }
        return try body()
    }
}
