/// A store of decoded images in memory, keyed by the full request key.
public protocol ImageCaching: Sendable {
    func image(for key: String) -> Image?
    func store(_ image: Image, for key: String)
    func removeImage(for key: String)
    func removeAll()
}

/// A store of encoded bytes (originals under the URL key, small results under the full key): the disk cache,
/// cache plugins, and the caches manager that combines them.
public protocol DataCaching: Sendable {
    var name: String { get }
    func data(for key: String) async throws -> [UInt8]?
    func store(_ data: [UInt8], for key: String) async throws
    func removeData(for key: String) async throws
    func removeAll() async throws
    func statistics() async -> CacheStatistics
}

/// Counters a cache reports (`imagepipe cache stats`).
public struct CacheStatistics: Sendable, Codable, Equatable {
    public var name: String
    public var entryCount: Int
    public var totalBytes: Int
    /// Hits and misses of this process only (a cache shared by several processes keeps no common counters).
    public var hits: Int
    public var misses: Int
    /// Files of writes that never finished (a process killed mid-write), not counted in `entryCount`; their bytes
    /// are. The disk cache removes those older than a minute when opened, pruned or cleared.
    public var temporaryFiles: Int

    public init(name: String, entryCount: Int, totalBytes: Int, hits: Int, misses: Int, temporaryFiles: Int = 0) {
        self.name = name
        self.entryCount = entryCount
        self.totalBytes = totalBytes
        self.hits = hits
        self.misses = misses
        self.temporaryFiles = temporaryFiles
    }
}
