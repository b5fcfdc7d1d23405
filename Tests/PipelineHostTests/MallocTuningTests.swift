#if canImport(Glibc)
import Glibc
#endif
import PipelineHost
import Testing

/// The service's arena bound, checked by what glibc does with it rather than by mallopt's answer (which is 1 even
/// for a parameter glibc does not know).
@Suite struct MallocTuningTests {
    private typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32

    /// The arenas glibc has made in this process so far: the `<heap nr=` elements of malloc_info's report.
    private static func arenaCount() throws -> Int {
        let symbol = try #require(dlsym(dlopen(nil, RTLD_NOW), "malloc_info"))
        let mallocInfo = unsafeBitCast(symbol, to: MallocInfo.self)
        var buffer: UnsafeMutablePointer<CChar>?
        var size = 0
        let stream = try #require(open_memstream(&buffer, &size))
        _ = mallocInfo(0, stream)
        fclose(stream)
        defer { free(buffer) }
        let report = String(cString: try #require(buffer))
        return report.components(separatedBy: "<heap nr=").count - 1
    }

    @Test("once bounded, threads that contend for malloc make no arena beyond the bound",
          .enabled(if: getenv("MALLOC_ARENA_MAX") == nil, "MALLOC_ARENA_MAX in the environment bounds the arenas instead"))
    func contendingThreadsShareTheBoundedArenas() throws {
        #expect(MallocTuning.applyForService() == MallocTuning.arenaBound)
        let before = try Self.arenaCount()
        // Sixteen threads allocating at once: with glibc's default bound (8 per core) some would get new arenas.
        var threads: [pthread_t] = []
        for _ in 0..<16 {
            var thread = pthread_t()
            let started = pthread_create(&thread, nil, { _ in
                for round in 0..<2000 {
                    let block = malloc(1 << (10 + round % 8))
                    free(block)
                }
                return nil
            }, nil)
            try #require(started == 0)
            threads.append(thread)
        }
        for thread in threads { pthread_join(thread, nil) }
        #expect(try Self.arenaCount() <= max(before, MallocTuning.arenaBound))
    }
}
