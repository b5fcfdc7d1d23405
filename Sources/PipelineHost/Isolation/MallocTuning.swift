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
}
