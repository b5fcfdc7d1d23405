import Dispatch
import Synchronization

/// A bounded executor for one stage of the pipeline (decoding, processing, encoding): at most `width` jobs run at
/// once, on Dispatch's threads rather than Swift's cooperative pool, so a decode that blocks for 200 ms (or waits
/// for a worker process in `WorkerPool.acquire`) never starves the async tasks around it (Nuke's per-stage
/// operation queues). Jobs wait in two queues, normal before low, so prefetching never delays what is shown.
///
/// A job cancelled while it still waits is dropped without running; one already running is told through the
/// cancellation its body watches (a `CallContext`), since a C decode cannot be stopped from outside.
public final class StageExecutor: Sendable {
    public enum Priority: Sendable { case normal, low }

    private struct Job {
        let id: UInt64
        let run: @Sendable () -> Void
        let drop: @Sendable () -> Void
    }

    private struct State {
        var normal: [Job] = []
        var low: [Job] = []
        var running = 0
    }

    public let name: String
    public let width: Int
    private let state = Mutex(State())
    private let counter = Atomic<UInt64>(0)

    public init(name: String, width: Int) {
        self.name = name
        self.width = max(1, width)
    }

    /// Jobs waiting (not yet running), for statistics and tests.
    public var waiting: Int { state.withLock { $0.normal.count + $0.low.count } }

    /// Runs `body` on one of the stage's threads when a slot is free; throws `PipelineError.cancelled` if the calling
    /// task is cancelled before it starts.
    public func run<T: Sendable>(priority: Priority = .normal, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        let id = counter.add(1, ordering: .relaxed).newValue
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
                let job = Job(id: id, run: { continuation.resume(with: Result { try body() }) },
                              drop: { continuation.resume(throwing: PipelineError.cancelled) })
                if Task.isCancelled { job.drop(); return }
                let start = state.withLock { s -> Bool in
                    if s.running < width { s.running += 1; return true }
                    if priority == .low { s.low.append(job) } else { s.normal.append(job) }
                    return false
                }
                if start { launch(job) }
            }
        } onCancel: {
            let dropped = state.withLock { s -> Job? in
                if let i = s.normal.firstIndex(where: { $0.id == id }) { return s.normal.remove(at: i) }
                if let i = s.low.firstIndex(where: { $0.id == id }) { return s.low.remove(at: i) }
                return nil
            }
            dropped?.drop()
        }
    }

    /// Runs `job`, then whatever waits, on one thread, until the queues are empty.
    private func launch(_ job: Job) {
        DispatchQueue.global(qos: .userInitiated).async {
            var next: Job? = job
            while let current = next {
                current.run()
                next = self.state.withLock { s -> Job? in
                    if !s.normal.isEmpty { return s.normal.removeFirst() }
                    if !s.low.isEmpty { return s.low.removeFirst() }
                    s.running -= 1
                    return nil
                }
            }
        }
    }
}
