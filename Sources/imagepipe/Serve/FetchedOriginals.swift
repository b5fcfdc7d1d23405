import PipelineHost

/// The service's data tier: originals fetched before a render takes its slot wait here until the render reads
/// them (then they are let go), in front of the disk cache of `--cache-dir` if there is one.
///
/// Why: a render slot is for decoding and encoding. Fetching inside it let two never-answering origins hold both
/// slots while a local render waited. So a request fetches first (`ImageManager.originalData`, no slot), and the
/// render that follows finds the bytes here instead of fetching again. A byte-bounded LRU (`OutputCache`): under
/// pressure an original is dropped and its render fetches it again, which is slower but correct.
final class FetchedOriginals: DataCaching {
    let name = "fetched originals"
    private let memory: OutputCache
    private let next: (any DataCaching)?

    init(capacity: Int, next: (any DataCaching)?) {
        memory = OutputCache(capacity: capacity)
        self.next = next
    }

    func data(for key: String) async throws -> [UInt8]? {
        if let entry = memory.entry(for: key) { return entry.body }
        return try await next?.data(for: key)
    }

    func store(_ data: [UInt8], for key: String) async throws {
        memory.store(OutputCache.Entry(body: data, contentType: "", etag: ""), for: key)
        try await next?.store(data, for: key)
    }

    /// Lets the memory copy go (the render has read it); the disk tier keeps its own.
    func release(_ key: String) { memory.remove(key) }

    func removeData(for key: String) async throws {
        memory.remove(key)
        try await next?.removeData(for: key)
    }

    func removeAll() async throws {
        memory.removeAll()
        try await next?.removeAll()
    }

    func statistics() async -> CacheStatistics {
        await next?.statistics() ?? CacheStatistics(name: name, entryCount: 0, totalBytes: 0, hits: 0, misses: 0)
    }
}
