import PipelineHost
import Synchronization

/// What `/metrics` reports, in Prometheus' text format: requests by status, a latency histogram, cache hits per
/// tier, renders, the render gate's occupancy, and the pipeline's and the worker pool's own counters.
final class ServiceMetrics: Sendable {
    static let bucketBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private struct State {
        var byStatus: [Int: Int] = [:]
        var buckets = [Int](repeating: 0, count: ServiceMetrics.bucketBounds.count)
        var count = 0
        var sum = 0.0
        var tierHits: [String: Int] = [:]
        var misses = 0
        var renders = 0
        var rejected = 0
        /// Revalidations of http(s) sources by result: not-modified (304), unchanged (same bytes), changed.
        var revalidations: [String: Int] = [:]
    }

    private let state = Mutex(State())
    /// The HTTP server's count of connections shut for an overdue request head (set once the server runs).
    let overdueHeads = Mutex<(@Sendable () -> Int)?>(nil)

    func record(status: Int, seconds: Double) {
        state.withLock { s in
            s.byStatus[status, default: 0] += 1
            s.count += 1
            s.sum += seconds
            if let index = Self.bucketBounds.firstIndex(where: { seconds <= $0 }) { s.buckets[index] += 1 }
        }
    }

    func hit(_ tier: String) { state.withLock { $0.tierHits[tier, default: 0] += 1 } }
    func miss() { state.withLock { $0.misses += 1 } }
    func rendered() { state.withLock { $0.renders += 1 } }
    func rejectedAsBusy() { state.withLock { $0.rejected += 1 } }
    func revalidated(_ outcome: RemoteSourceVersions.Outcome) {
        let result: String
        switch outcome {
        case .notModified: result = "not_modified"
        case .fetched: result = "fetched"
        }
        state.withLock { $0.revalidations[result, default: 0] += 1 }
    }
    var renders: Int { state.withLock { $0.renders } }

    func text(gate: RenderGate, pipeline: PipelineStatistics, workers: WorkerPool.Statistics?) -> String {
        let s = state.withLock { $0 }
        var lines: [String] = []
        lines.append("# HELP imagepipe_requests_total Requests answered, by HTTP status.")
        lines.append("# TYPE imagepipe_requests_total counter")
        for (status, count) in s.byStatus.sorted(by: { $0.key < $1.key }) { lines.append("imagepipe_requests_total{status=\"\(status)\"} \(count)") }
        lines.append("# HELP imagepipe_request_duration_seconds Time from request to answer.")
        lines.append("# TYPE imagepipe_request_duration_seconds histogram")
        var cumulative = 0
        for (bound, count) in zip(Self.bucketBounds, s.buckets) {
            cumulative += count
            lines.append("imagepipe_request_duration_seconds_bucket{le=\"\(bound)\"} \(cumulative)")
        }
        lines.append("imagepipe_request_duration_seconds_bucket{le=\"+Inf\"} \(s.count)")
        lines.append("imagepipe_request_duration_seconds_sum \(s.sum)")
        lines.append("imagepipe_request_duration_seconds_count \(s.count)")
        lines.append("# HELP imagepipe_cache_hits_total Outputs served from a cache tier (memory: this process; shared: Redis; durable: the S3 result store).")
        lines.append("# TYPE imagepipe_cache_hits_total counter")
        for tier in ["memory", "shared", "durable"] { lines.append("imagepipe_cache_hits_total{tier=\"\(tier)\"} \(s.tierHits[tier] ?? 0)") }
        lines.append("# TYPE imagepipe_cache_misses_total counter")
        lines.append("imagepipe_cache_misses_total \(s.misses)")
        lines.append("# HELP imagepipe_http_header_timeouts_total Connections shut because a request head was not complete within --header-timeout (a slow client, or a slowloris).")
        lines.append("# TYPE imagepipe_http_header_timeouts_total counter")
        lines.append("imagepipe_http_header_timeouts_total \(overdueHeads.withLock { $0 }?() ?? 0)")
        lines.append("# HELP imagepipe_renders_total Outputs rendered (decoded, processed and encoded) by this process.")
        lines.append("# TYPE imagepipe_renders_total counter")
        lines.append("imagepipe_renders_total \(s.renders)")
        lines.append("# HELP imagepipe_source_fetches_total Requests to origins for http(s) sources: fetched (a first fetch, or a 200 to a revalidation) or not_modified (a 304).")
        lines.append("# TYPE imagepipe_source_fetches_total counter")
        for result in ["fetched", "not_modified"] { lines.append("imagepipe_source_fetches_total{result=\"\(result)\"} \(s.revalidations[result] ?? 0)") }
        lines.append("# TYPE imagepipe_rejected_busy_total counter")
        lines.append("imagepipe_rejected_busy_total \(s.rejected)")
        lines.append("# TYPE imagepipe_renders_in_flight gauge")
        lines.append("imagepipe_renders_in_flight \(gate.running)")
        lines.append("# HELP imagepipe_requests_in_progress Admitted requests fetching, waiting for a render slot or rendering.")
        lines.append("# TYPE imagepipe_requests_in_progress gauge")
        lines.append("imagepipe_requests_in_progress \(gate.admitted)")
        lines.append("# TYPE imagepipe_renders_queued gauge")
        lines.append("imagepipe_renders_queued \(gate.waiting)")
        lines.append("# TYPE imagepipe_pipeline_fetches_total counter")
        lines.append("imagepipe_pipeline_fetches_total \(pipeline.fetches)")
        lines.append("# HELP imagepipe_pipeline_ranged_reads_total Of those, large local sources read by their coder in ranges instead of whole.")
        lines.append("# TYPE imagepipe_pipeline_ranged_reads_total counter")
        lines.append("imagepipe_pipeline_ranged_reads_total \(pipeline.rangedReads)")
        lines.append("# TYPE imagepipe_pipeline_decodes_total counter")
        lines.append("imagepipe_pipeline_decodes_total \(pipeline.decodes)")
        lines.append("# TYPE imagepipe_pipeline_memory_hits_total counter")
        lines.append("imagepipe_pipeline_memory_hits_total \(pipeline.memoryCacheHits)")
        lines.append("# HELP imagepipe_worker_restarts_total Isolated workers replaced after a crash, a timeout, the memory cap or a cancelled request.")
        lines.append("# TYPE imagepipe_worker_restarts_total counter")
        // A request past the service's deadline is cancelled, and its worker killed and replaced: that is counted as
        // a cancellation by the pool, and it is a restart all the same.
        let restarts = workers.map { $0.crashes + $0.timeouts + $0.memoryLimitHits + $0.cancellations } ?? 0
        lines.append("imagepipe_worker_restarts_total \(restarts)")
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Bounds the requests in progress (fetching, waiting for a slot or rendering) to `limit + queueLimit`, beyond which
/// a request is refused (503) at once rather than queued without end, and the renders running at once to `limit`.
/// Fetches take no render slot, but they count against admission, so a flood of slow origins cannot grow without
/// bound either.
final class RenderGate: Sendable {
    let limit: Int
    let queueLimit: Int
    private struct State {
        var admitted = 0
        var running = 0
        var nextID: UInt64 = 0
        /// In arrival order; a waiter whose request was cancelled (its deadline passed) is removed.
        var waiting: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
    }
    private let state = Mutex(State())
    /// The HTTP server's count of connections shut for an overdue request head (set once the server runs).
    let overdueHeads = Mutex<(@Sendable () -> Int)?>(nil)

    init(limit: Int, queueLimit: Int) {
        self.limit = max(1, limit)
        self.queueLimit = max(0, queueLimit)
    }

    var running: Int { state.withLock { $0.running } }
    var waiting: Int { state.withLock { $0.waiting.count } }

    var admitted: Int { state.withLock { $0.admitted } }

    /// Takes a place for a request in progress; false when all `limit + queueLimit` are taken: the caller answers
    /// 503. Every true is followed by one `finish()`.
    func admit() -> Bool {
        state.withLock { s in
            guard s.admitted < limit + queueLimit else { return false }
            s.admitted += 1
            return true
        }
    }

    func finish() { state.withLock { $0.admitted -= 1 } }

    /// Waits for a render slot (an admitted request only). False when
    /// the task was cancelled while it waited: it holds no slot and must not `leave()`.
    func enter() async -> Bool {
        let id = state.withLock { s -> UInt64 in s.nextID += 1; return s.nextID }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { s -> Bool? in
                    if Task.isCancelled { return false }
                    if s.running < limit { s.running += 1; return true }
                    s.waiting.append((id, continuation))
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let removed = state.withLock { s -> CheckedContinuation<Bool, Never>? in
                guard let index = s.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return s.waiting.remove(at: index).continuation
            }
            removed?.resume(returning: false)
        }
    }

    func leave() {
        let next = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            if s.waiting.isEmpty { s.running -= 1; return nil }
            return s.waiting.removeFirst().continuation  // the slot passes on
        }
        next?.resume(returning: true)
    }
}

/// Encoded outputs in memory, least recently used evicted past `capacity` bytes: a repeated thumbnail costs a
/// lookup, not a render (what the 10,000 requests/s target rests on).
final class OutputCache: Sendable {
    struct Entry: Sendable {
        let body: [UInt8]
        let contentType: String
        let etag: String
    }

    private struct State {
        var entries: [String: (entry: Entry, tick: UInt64)] = [:]
        var bytes = 0
        var tick: UInt64 = 0
    }

    let capacity: Int
    private let state = Mutex(State())
    /// The HTTP server's count of connections shut for an overdue request head (set once the server runs).
    let overdueHeads = Mutex<(@Sendable () -> Int)?>(nil)

    init(capacity: Int) { self.capacity = capacity }

    func entry(for key: String) -> Entry? {
        state.withLock { s in
            guard var found = s.entries[key] else { return nil }
            s.tick += 1
            found.tick = s.tick
            s.entries[key] = found
            return found.entry
        }
    }

    func store(_ entry: Entry, for key: String) {
        guard entry.body.count <= capacity / 4 else { return }
        state.withLock { s in
            s.tick += 1
            if let old = s.entries[key] { s.bytes -= old.entry.body.count }
            s.entries[key] = (entry, s.tick)
            s.bytes += entry.body.count
            while s.bytes > capacity, let oldest = s.entries.min(by: { $0.value.tick < $1.value.tick }) {
                s.entries[oldest.key] = nil
                s.bytes -= oldest.value.entry.body.count
            }
        }
    }

    func remove(_ key: String) {
        state.withLock { s in
            if let old = s.entries.removeValue(forKey: key) { s.bytes -= old.entry.body.count }
        }
    }

    func removeAll() {
        state.withLock { s in
            s.entries = [:]
            s.bytes = 0
        }
    }
}
