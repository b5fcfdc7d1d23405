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
/// the same throughput).
///
/// What still moved was glibc's *dynamic* mmap threshold: it starts at 128 KiB and rises to the size of each large
/// buffer freed, so the first renders get fresh mappings, later ones get heap memory, and the heap's resident size
/// keeps stepping up as ever larger buffers cross over. Trimming that back every few seconds made a sawtooth
/// (−19 % / +11 % between 10-s samples: the trimmed holes fault back in as the next renders reuse them). So the
/// threshold is fixed at glibc's ceiling instead (32 MiB on 64-bit): from the first request, every buffer below it
/// is reused from the two arenas, and every buffer above it (a huge decode) is its own mapping, returned the moment
/// it is freed. And the heaps are not shrunk behind the service's back (trim threshold 1 GiB), since the next
/// render wants those pages again. The RSS then rises to the working set of the request mix within the first minute
/// and stays there (−5.5 % / +3.4 % over the same 5 minutes, at the same renders per second); `serve
/// --malloc-trim SECONDS` still returns idle pages periodically for an operator who prefers a lower mean to a flat
/// line.
public enum MallocTuning {
    /// The bound of `serve` and of the isolated workers (WorkerSpawner, PreforkedWorker).
    public static let arenaBound = 2

    /// Buffers from this size up are mmapped and unmapped when freed: glibc's maximum threshold on 64-bit
    /// (DEFAULT_MMAP_THRESHOLD_MAX), the size its dynamic threshold would climb towards anyway.
    public static let mmapThreshold = 32 << 20

    /// Free memory at the top of a heap beyond this is given back by free itself; far above a service's working set,
    /// so that free never shrinks a heap the next request grows again.
    public static let trimThreshold = 1 << 30

    /// What `applyForService` set: nil for a setting the operator's environment had already chosen (glibc read it
    /// at start) or that mallopt refused.
    public struct ServiceSettings: Equatable, Sendable {
        public var arenaBound: Int?
        public var mmapThreshold: Int?
        public var trimThreshold: Int?
    }

    /// Bounds the arenas and fixes the mmap and trim thresholds (see the type's comment), each unless the operator's
    /// environment (MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_) already chose; returns the arena
    /// bound in force, or nil when it could not be set.
    @discardableResult
    public static func applyForService() -> Int? {
        let settings = applyServiceSettings()
        if let text = getenv("MALLOC_ARENA_MAX").map({ String(cString: $0) }) { return Int(text) }
        return settings.arenaBound
    }

    /// `applyForService`, saying what it set.
    public static func applyServiceSettings() -> ServiceSettings {
        let thresholds = applyThresholds()
        return ServiceSettings(arenaBound: set(LinuxSystem.M_ARENA_MAX, arenaBound, unless: "MALLOC_ARENA_MAX"),
                               mmapThreshold: thresholds.mmapThreshold, trimThreshold: thresholds.trimThreshold)
    }

    /// Fixes the mmap and trim thresholds only (each unless the environment chose), leaving the arenas to glibc;
    /// returns what it set (`arenaBound` nil). The CLI applies this to every command.
    ///
    /// Why a short-lived command wants it too: one render hands a chain of megabyte buffers from stage to stage (the
    /// file, the inflated rows, the decoded image, the resampler's rows, the output, the encoder's filtered rows).
    /// Under the dynamic threshold each of them is a fresh mapping whose pages fault in one by one and are returned
    /// when it is freed, so the next buffer faults them in again; with the threshold fixed, a freed buffer's pages
    /// serve the next one. A 640×480 16-bit PNG → 256 px render took 2,939 page faults and 46.2 ms, 2,393 and
    /// 43.3 ms with these settings (alternated runs, 2 cores). The arenas stay glibc's: a batch on a large machine
    /// runs a lane per core, and two arenas would make those lanes queue on malloc's locks.
    @discardableResult
    public static func applyThresholds() -> ServiceSettings {
        ServiceSettings(
            arenaBound: nil,
            mmapThreshold: set(LinuxSystem.M_MMAP_THRESHOLD, mmapThreshold, unless: "MALLOC_MMAP_THRESHOLD_"),
            trimThreshold: set(LinuxSystem.M_TRIM_THRESHOLD, trimThreshold, unless: "MALLOC_TRIM_THRESHOLD_"))
    }

    /// One mallopt setting, unless the operator's environment variable already chose it (glibc read it at start).
    private static func set(_ parameter: Int32, _ value: Int, unless variable: String) -> Int? {
        guard getenv(variable) == nil, LinuxSystem.mallopt(parameter, Int32(clamping: value)) else { return nil }
        return value
    }

    /// Returns malloc's free pages to the kernel every `seconds` (malloc_trim(0), on a utility queue), until the
    /// process ends; a second call changes the interval, 0 stops it.
    ///
    /// Why: an operator who would rather have a lower mean RSS than a flat one (serve's default is no trim: see the
    /// type's comment) gets the idle pages back this often. malloc_trim walks each arena under its lock — a fraction
    /// of a millisecond for a few hundred MiB — so an interval of seconds costs nothing measurable.
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
