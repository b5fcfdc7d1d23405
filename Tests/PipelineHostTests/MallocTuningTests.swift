#if canImport(Glibc)
import Glibc
#endif
import Foundation
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

    /// Resident bytes of this process, from /proc/self/statm.
    private static func residentBytes() throws -> Int {
        let text = try #require(try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))
        let pages = try #require(text.split(separator: " ").dropFirst().first.flatMap { Int($0) })
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
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
        let freedButHeld = try Self.residentBytes()
        let trimsBefore = MallocTuning.trimCount
        MallocTuning.trimPeriodically(every: 0.05)
        defer { MallocTuning.trimPeriodically(every: 0) }
        var waited = 0
        while MallocTuning.trimCount < trimsBefore + 2, waited < 200 {
            try await Task.sleep(nanoseconds: 20_000_000)
            waited += 1
        }
        #expect(MallocTuning.trimCount >= trimsBefore + 2, "the timer ran \(MallocTuning.trimCount - trimsBefore) times in 4 s")
        let afterTrim = try Self.residentBytes()
        // At least half of what was freed went back (other suites in this process allocate meanwhile).
        #expect(freedButHeld - afterTrim > (count * size) / 2, "RSS \(freedButHeld >> 20) -> \(afterTrim >> 20) MiB")
    }
}
