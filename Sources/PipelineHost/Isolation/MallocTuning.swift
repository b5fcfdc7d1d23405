import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// glibc malloc settings for a long-running process that allocates many short-lived megabyte buffers.
///
/// Why: with glibc's defaults the RSS of `serve` climbed for minutes under uncached renders with no leak
/// (Benchmarks/serve --only-memory, 5 minutes: 212 → 324 MiB). A thread that meets a locked arena gets a new one,
/// up to 8 per core, and each arena keeps what was freed in it; decodes and encodes hopping across the pool's
/// threads spread their buffers over all of them. Two arenas — what imgproxy and sharp document as
/// MALLOC_ARENA_MAX=2, and what the isolated workers use — cut that (mean after the first minute 303 → 258 MiB at
/// the same throughput). What still creeps is glibc's dynamic mmap threshold (see the README's service section).
public enum MallocTuning {
    /// The bound of `serve` and of the isolated workers (WorkerSpawner, PreforkedWorker).
    public static let arenaBound = 2

    /// Bounds the arenas unless the operator's MALLOC_ARENA_MAX (which glibc read at start) already chose; returns
    /// the bound in force, or nil when it could not be set.
    @discardableResult
    public static func applyForService() -> Int? {
        if let text = getenv("MALLOC_ARENA_MAX").map({ String(cString: $0) }) { return Int(text) }
        return LinuxSystem.mallopt(LinuxSystem.M_ARENA_MAX, Int32(clamping: arenaBound)) ? arenaBound : nil
    }

    /// Returns malloc's free pages to the kernel every `seconds` (malloc_trim(0), on a utility queue), until the
    /// process ends; a second call changes the interval, 0 stops it.
    ///
    /// Why: with the arena bound alone the RSS of a long uncached run still rose (+45 MiB over 5 minutes): glibc
    /// raises its mmap threshold to the size of each large buffer freed, after which megabyte pixel buffers come from
    /// the arenas and their pages stay resident when freed. A fixed threshold kept RSS flat but cost 20 % of the
    /// throughput (every buffer a fresh, zeroed mapping); trimming keeps the reuse and gives back what is idle.
    /// malloc_trim walks each arena under its lock — a fraction of a millisecond for a few hundred MiB — so an
    /// interval of seconds costs nothing measurable.
    public static func trimPeriodically(every seconds: Double) {
        trimTimer.withLock { slot in
            slot?.cancel()
            slot = nil
            guard seconds > 0 else { return }
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "imagepipe.malloc-trim", qos: .utility))
            let interval = DispatchTimeInterval.milliseconds(Int(seconds * 1000))
            timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(Int(seconds * 100)))
            timer.setEventHandler { trims.add(1, ordering: .relaxed); LinuxSystem.mallocTrim() }
            timer.resume()
            slot = TrimTimer(source: timer)
        }
    }

    /// How many trims have run (tests, /metrics).
    public static var trimCount: Int { trims.load(ordering: .relaxed) }

    private static let trims = Atomic<Int>(0)
    private static let trimTimer = Mutex<TrimTimer?>(nil)

    /// The timer behind `trimPeriodically`; only touched under `trimTimer`'s lock.
    private struct TrimTimer: @unchecked Sendable {
        let source: any DispatchSourceTimer
        func cancel() { source.cancel() }
    }
}
