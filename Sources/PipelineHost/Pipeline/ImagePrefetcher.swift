import Synchronization

/// Warms the caches for images about to be needed (Nuke's `ImagePrefetcher`, SDWebImage's prefetcher): start it
/// with a list of requests, stop it for some or all of them. Prefetches run at low priority on every stage (a
/// request for something shown always goes first), at most `maxConcurrent` at once, and share their work with a
/// real request for the same image that arrives meanwhile (the manager coalesces them).
///
/// `destination` chooses what is kept: the finished image (memory cache, and the data cache for derived results)
/// or only the original bytes (data cache), which is cheaper when many images may never be shown.
public final class ImagePrefetcher: Sendable {
    public enum Destination: Sendable { case memoryCache, dataCache }

    /// How a batch of prefetches ended.
    public struct Outcome: Sendable, Equatable {
        public var completed = 0
        public var failed = 0
        public var cancelled = 0
    }

    public let manager: ImageManager
    public let destination: Destination
    public let maxConcurrent: Int
    private let state = Mutex(State())

    private struct State {
        var queue: [(key: String, request: ImageRequest)] = []
        var running: [String: Task<Void, Never>] = [:]
        var queued: Set<String> = []
        var outcome = Outcome()
        var failures: [String] = []
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    public init(manager: ImageManager, destination: Destination = .memoryCache, maxConcurrent: Int = 2) {
        self.manager = manager
        self.destination = destination
        self.maxConcurrent = max(1, maxConcurrent)
    }

    /// Queues the requests not already queued or running.
    public func startPrefetching(with requests: [ImageRequest]) {
        state.withLock { s in
            for request in requests {
                let key = ImageCacheKey(request, filter: manager.configuration.keyFilter).imageKey
                if s.queued.contains(key) || s.running[key] != nil { continue }
                s.queued.insert(key)
                s.queue.append((key, request))
            }
        }
        pump()
    }

    /// Forgets the queued ones and cancels the running ones among `requests` (a row scrolled away).
    public func stopPrefetching(with requests: [ImageRequest]) {
        let keys = Set(requests.map { ImageCacheKey($0, filter: manager.configuration.keyFilter).imageKey })
        let cancelled = state.withLock { s -> [Task<Void, Never>] in
            let before = s.queue.count
            s.queue.removeAll { keys.contains($0.key) }
            s.outcome.cancelled += before - s.queue.count
            s.queued.subtract(keys)
            return keys.compactMap { s.running[$0] }
        }
        cancelled.forEach { $0.cancel() }
        pump()
    }

    /// Stops everything.
    public func stopPrefetching() {
        let cancelled = state.withLock { s -> [Task<Void, Never>] in
            s.outcome.cancelled += s.queue.count
            s.queue.removeAll()
            s.queued.removeAll()
            return Array(s.running.values)
        }
        cancelled.forEach { $0.cancel() }
        pump()
    }

    /// Requests queued or running.
    public var pending: Int { state.withLock { $0.queue.count + $0.running.count } }

    /// What has finished so far.
    public var outcome: Outcome { state.withLock { $0.outcome } }

    /// One line per failed prefetch ("<url>: <error>"), the first 1000.
    public var failures: [String] { state.withLock { $0.failures } }

    /// Returns when nothing is queued or running (a batch warm-up waits for it).
    public func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { s -> Bool in
                if s.queue.isEmpty && s.running.isEmpty { return true }
                s.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// Starts queued prefetches while fewer than `maxConcurrent` run; wakes idle waiters when all are done.
    private func pump() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            while s.running.count < maxConcurrent, !s.queue.isEmpty {
                let (key, request) = s.queue.removeFirst()
                s.queued.remove(key)
                s.running[key] = Task(priority: .low) { [self] in await self.prefetch(request, key: key) }
            }
            guard s.queue.isEmpty, s.running.isEmpty else { return [] }
            defer { s.idleWaiters.removeAll() }
            return s.idleWaiters
        }
        waiters.forEach { $0.resume() }
    }

    private func prefetch(_ request: ImageRequest, key: String) async {
        var result: Result<Void, Error>
        do {
            switch destination {
            case .memoryCache: _ = try await manager.image(for: request, progress: nil, priority: .low)
            case .dataCache: _ = try await manager.data(for: request)
            }
            result = .success(())
        } catch {
            result = .failure(error)
        }
        state.withLock { s in
            s.running[key] = nil
            switch result {
            case .success: s.outcome.completed += 1
            case .failure(let error):
                if Task.isCancelled || error as? PipelineError == .cancelled {
                    s.outcome.cancelled += 1
                } else {
                    s.outcome.failed += 1
                    if s.failures.count < 1000 { s.failures.append("\(request.url): \(error)") }
                }
            }
        }
        pump()
    }
}
