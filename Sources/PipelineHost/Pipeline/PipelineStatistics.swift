import Synchronization

/// What an image manager has done since it was made: the counts that show coalescing and caching at work
/// (tests assert on them; a service exports them as metrics).
public struct PipelineStatistics: Sendable, Equatable {
    /// Requests answered from the memory cache.
    public var memoryCacheHits = 0
    /// Originals loaded by a loader (each shared fetch counts once).
    public var fetches = 0
    /// Of those, local files read by ranges by their coder instead of whole (`rangedReadThreshold`).
    public var rangedReads = 0
    /// Coder decodes started (a full decode shared by several sizes counts once).
    public var decodes = 0
    /// Transformer chains run (identical requests share one).
    public var processings = 0
}

/// The manager's counters, updated from any task.
final class StatisticsCounters: Sendable {
    private let values = Mutex(PipelineStatistics())
    func update(_ body: (inout PipelineStatistics) -> Void) { values.withLock { body(&$0) } }
    var snapshot: PipelineStatistics { values.withLock { $0 } }
}
