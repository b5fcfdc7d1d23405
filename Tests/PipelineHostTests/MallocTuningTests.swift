#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PipelineHost
import Testing

/// The service's arena bound and thresholds, checked by what glibc does with it rather than by mallopt's answer (which is 1 even
/// for a parameter glibc does not know). Serialized: the periodic trim's timer would return the pages another test
/// counts on staying resident.
@Suite(.serialized) struct MallocTuningTests {
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

    /// How many whole pages inside these blocks are resident, from mincore(2). Counting the blocks' own pages, not
    /// the process's RSS, keeps the test blind to what other suites in this process allocate meanwhile.
    ///
    /// A range that is no longer mapped at all (ENOMEM: a trim of a non-main arena can unmap a whole heap of freed
    /// blocks) counts as not resident when `unmappedIsReturned`: unmapped is the most given back a page can be.
    private static func residentPages(of blocks: ArraySlice<UnsafeMutableRawPointer>, size: Int, unmappedIsReturned: Bool = false) throws -> Int {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var resident = 0
        var vector = [UInt8](repeating: 0, count: size / page + 1)
        for block in blocks {
            let first = (Int(bitPattern: block) + page - 1) / page * page
            let end = (Int(bitPattern: block) + size) / page * page
            guard end > first else { continue }
            let pages = (end - first) / page
            let answered = vector.withUnsafeMutableBufferPointer {
                mincore(UnsafeMutableRawPointer(bitPattern: first), end - first, $0.baseAddress)
            }
            if answered != 0, errno == ENOMEM, unmappedIsReturned { continue }
            try #require(answered == 0, "mincore failed: errno \(errno)")
            resident += vector[0..<pages].reduce(0) { $0 + Int($1 & 1) }
        }
        return resident
    }

    @Test("with the service's thresholds an 8 MiB buffer comes from an arena (reused by the next render), the trim threshold at 1 GiB",
          .enabled(if: getenv("MALLOC_MMAP_THRESHOLD_") == nil && getenv("MALLOC_TRIM_THRESHOLD_") == nil,
                   "the environment fixes glibc's thresholds instead"))
    func fixedThresholdsKeepTheWorkingSet() throws {
        try Self.expectFixedThresholds(MallocTuning.applyServiceSettings())
    }

    @Test("the CLI's settings (every command) fix the same thresholds and leave the arenas to glibc",
          .enabled(if: getenv("MALLOC_MMAP_THRESHOLD_") == nil && getenv("MALLOC_TRIM_THRESHOLD_") == nil,
                   "the environment fixes glibc's thresholds instead"))
    func commandLineThresholdsLeaveTheArenas() throws {
        let settings = MallocTuning.applyThresholds()
        #expect(settings.arenaBound == nil)
        try Self.expectFixedThresholds(settings)
    }

    private static func expectFixedThresholds(_ settings: MallocTuning.ServiceSettings) throws {
        #expect(settings.mmapThreshold == MallocTuning.mmapThreshold)
        #expect(settings.trimThreshold == MallocTuning.trimThreshold)
        // Below the threshold: from an arena, not a mapping of its own (glibc's default would have mapped it and
        // unmapped it at free, so the next render of the same size faults in fresh zeroed pages). glibc marks a
        // mapped chunk with bit 1 (IS_MMAPPED) of the size word before the block. (Whether its pages stay resident
        // after free is not asked: a trim elsewhere in this test process may return them.)
        let size = 8 << 20
        let block = try #require(malloc(size))
        defer { free(block) }
        let sizeWord = block.load(fromByteOffset: -MemoryLayout<UInt>.size, as: UInt.self)
        #expect(sizeWord & 2 == 0, "an 8 MiB block was mapped on its own (size word \(String(sizeWord, radix: 16)))")
        #expect(Int(sizeWord & ~7) >= size)
        // Not checked here: that a block above the threshold gets a mapping of its own. glibc maps it only when the
        // arena's top cannot hold it, and in this test process, with the trim threshold at 1 GiB, another suite's
        // freed buffers can leave a top far above 48 MiB, which then serves the block (CI, 2026-12-07: first the
        // freed range was still resident, then, checked by IS_MMAPPED, the block came from an arena). In a fresh
        // process, as serve and every command start, the top is small and the block is mapped.
    }

    @Test("the periodic trim gives freed heap pages back, which a plain free keeps while a block above them lives")
    func periodicTrimReturnsFreedPages() async throws {
        // 192 MiB of 64 KiB blocks (below glibc's mmap threshold, so they come from an arena), written so they are
        // resident, then freed all but the last: the heap cannot shrink past that block, so only a trim returns them.
        let count = 3072, size = 64 << 10
        var blocks: [UnsafeMutableRawPointer] = []
        for _ in 0..<count {
            let block = try #require(malloc(size))
            memset(block, 1, size)
            blocks.append(block)
        }
        for block in blocks.dropLast() { free(block) }
        defer { free(blocks.last) }
        let freed = blocks.dropLast()
        let heldBeforeTrim = try Self.residentPages(of: freed, size: size)
        let trimsBefore = MallocTuning.trimCount
        MallocTuning.trimPeriodically(every: 0.05)
        defer { MallocTuning.trimPeriodically(every: 0) }
        var waited = 0
        while MallocTuning.trimCount < trimsBefore + 2, waited < 200 {
            try await Task.sleep(nanoseconds: 20_000_000)
            waited += 1
        }
        #expect(MallocTuning.trimCount >= trimsBefore + 2, "the timer ran \(MallocTuning.trimCount - trimsBefore) times in 4 s")
        let heldAfterTrim = try Self.residentPages(of: freed, size: size, unmappedIsReturned: true)
        // A plain free kept (nearly) all of them; the trim gave at least half back (other suites in this process may
        // reuse some of the freed space meanwhile, which makes those pages resident again).
        #expect(heldBeforeTrim > freed.count * 12, "only \(heldBeforeTrim) pages stayed resident after free")
        #expect(heldAfterTrim < heldBeforeTrim / 2, "resident pages of the freed blocks: \(heldBeforeTrim) -> \(heldAfterTrim)")
    }
}
