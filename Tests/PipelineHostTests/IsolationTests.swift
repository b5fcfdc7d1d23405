import Foundation
import PipelineHost
import Testing
import TestSupport

/// Isolated decoding with a deliberately broken coder (Tests/Fixtures/broken_coder.c): every way a decoder can
/// fail costs one request and a typed error; the pool replaces the worker and the next request succeeds.
/// Serialized: the leak test counts this process's descriptors and children.
@Suite(.serialized) struct IsolationTests {
    typealias Support = IsolationSupport

    private func expectRecovered(_ host: PluginHost, _ note: Comment) throws {
        let image = try host.coders.decode(data: Support.input("ok"), isolation: .isolated)
        #expect(image.width == 3 && image.height == 2, note)
        #expect(image.pixel(x: 2, y: 1) == RGBA16Pixel(r: 160, g: 100, b: 50, a: 255), note)
    }

    @Test func crashesAreTypedErrorsAndTheNextRequestSucceeds() throws {
        // Given a pool over the broken coder
        let host = Support.host(try Support.pluginFolder())
        let pool = try Support.attachPool(to: host)
        let coder = "org.imagepipe.test.broken.coder/1"
        // When each crashing mode is decoded in a worker, then the error names the coder and the signal
        let expected: [(String, PipelineError)] = [
            ("segv", .decoderCrashed(coder: coder, signal: SIGSEGV)),
            ("abort", .decoderCrashed(coder: coder, signal: SIGABRT)),
            ("stack", .decoderCrashed(coder: coder, signal: SIGSEGV)),
            ("exit", .decoderCrashed(coder: coder, signal: 0)),
        ]
        for (mode, error) in expected {
            let failure = Support.failure { _ = try host.coders.decode(data: Support.input(mode), isolation: .isolated) }
            #expect(failure == error, "\(mode)")
            #expect(failure?.code == 6001, "\(mode)")
            try expectRecovered(host, "after \(mode)")
        }
        // And probes are isolated too
        let probeFailure = Support.failure { _ = try host.coders.probe(data: Support.input("segv"), isolation: .isolated) }
        #expect(probeFailure == .decoderCrashed(coder: coder, signal: SIGSEGV))
        #expect(try host.coders.probe(data: Support.input("ok"), isolation: .isolated).width == 3)
        #expect(pool.statistics.crashes == 5)
        pool.shutdown()
    }

    @Test func hangsTimeOutAtTheDeadline() throws {
        let host = Support.host(try Support.pluginFolder())
        let pool = try Support.attachPool(to: host, timeout: 1)
        for mode in ["loop", "sleep"] {
            let failure = Support.failure { _ = try host.coders.decode(data: Support.input(mode), isolation: .isolated) }
            #expect(failure == .timedOut(after: 1), "\(mode)")
            #expect(failure?.code == 6002)
            try expectRecovered(host, "after \(mode)")
        }
        // A per-request deadline overrides the pool's
        let failure = Support.failure { _ = try host.coders.decode(data: Support.input("loop"), isolation: .isolated, timeout: 0.5) }
        #expect(failure == .timedOut(after: 0.5))
        #expect(pool.statistics.timeouts == 3)
        pool.shutdown()
    }

    @Test("a timeout bounds an in-process decode too: the call is cancelled at the deadline and the coder stops")
    func inProcessDecodesHonourTheTimeout() throws {
        let host = Support.host(try Support.pluginFolder())
        let started = Date()
        // "poll" works until its call is cancelled: without the deadline this decode would never end.
        let failure = Support.failure { _ = try host.coders.decode(data: Support.input("poll"), isolation: .inProcess, timeout: 0.3) }
        let elapsed = Date().timeIntervalSince(started)
        #expect(failure == .timedOutInProcess(after: 0.3))
        #expect(failure?.code == 6004 && failure?.description.contains("timed out after 0.3 s") == true)
        #expect(elapsed >= 0.3 && elapsed < 3, "took \(elapsed) s")
        // A decode that finishes in time is unaffected by its deadline.
        #expect(try host.coders.decode(data: Support.input("ok"), isolation: .inProcess, timeout: 5).width == 3)
    }

    @Test func unboundedAllocationHitsTheMemoryLimit() throws {
        let host = Support.host(try Support.pluginFolder())
        let pool = try Support.attachPool(to: host, memoryLimit: 384 << 20)
        // "alloc" aborts when malloc fails (as g_malloc does); "alloc-status" returns NO_MEMORY
        for mode in ["alloc", "alloc-status"] {
            let failure = Support.failure { _ = try host.coders.decode(data: Support.input(mode), isolation: .isolated) }
            #expect(failure == .memoryLimitExceeded(limit: 384 << 20), "\(mode)")
            #expect(failure?.code == 6003)
            try expectRecovered(host, "after \(mode)")
        }
        #expect(pool.statistics.memoryLimitHits == 2)
        pool.shutdown()
    }

    @Test func theSandboxForbidsExecAndNetworkSockets() throws {
        let host = Support.host(try Support.pluginFolder())
        let pool = try Support.attachPool(to: host)
        let exec = Support.failure { _ = try host.coders.decode(data: Support.input("exec"), isolation: .isolated) }
        guard case .decodingFailed(_, _, let execMessage)? = exec else { Issue.record("exec: \(String(describing: exec))"); return }
        #expect(execMessage == "execve: Operation not permitted")
        let socket = Support.failure { _ = try host.coders.decode(data: Support.input("socket"), isolation: .isolated) }
        guard case .decodingFailed(_, _, let socketMessage)? = socket else { Issue.record("socket: \(String(describing: socket))"); return }
        #expect(socketMessage == "socket(AF_INET): Permission denied")
        pool.shutdown()
    }

    @Test func automaticIsolationRoutesOnlyCodersThatAskForIt() throws {
        // Given the broken coder (recommends isolation) and the PNG coder (does not) behind one pool
        let host = Support.host(try Support.pluginFolder(with: ["libPNGCoder.so"]))
        let pool = try Support.attachPool(to: host, size: 1)
        // When the manager's default (automatic) decodes a crashing input, the crash stays in the worker
        #expect(host.coders.isolator.policy == .automatic)
        let failure = Support.failure { _ = try host.coders.decode(data: Support.input("segv")) }
        #expect(failure?.code == 6001)
        // And a PNG decodes in process: no request reaches the pool
        let requests = pool.statistics.requests
        let png = try host.coders.encode(try Image(width: 2, height: 2, bytes: [UInt8](repeating: 200, count: 16)), format: "png")
        _ = try host.coders.decode(data: png)
        #expect(pool.statistics.requests == requests)
        // And `.isolated` without a pool is a usage error, not an in-process decode
        host.coders.isolator = Isolator(policy: .automatic, pool: nil)
        #expect(Support.failure { _ = try host.coders.decode(data: Support.input("ok"), isolation: .isolated) }?.code == 5000)
        pool.shutdown()
    }

    @Test func anIsolatorOwnsItsPolicyAndItsWorkers() throws {
        // Given an isolator with its own pool set on the manager
        let host = Support.host(try Support.pluginFolder())
        let isolator = Isolator(policy: .isolated, workers: WorkerPool.Configuration(
            executable: try Support.workerExecutable(), pluginDirectories: host.registry.searchPath.entries.map(\.directory),
            registryCachePath: nil, size: 1, timeout: 5))
        host.coders.isolator = isolator
        // When a request names no policy, it runs in that isolator's worker
        #expect(try host.coders.decode(data: Support.input("ok")).width == 3)
        #expect(isolator.pool?.statistics.requests == 1)
        let pids = isolator.pool?.statistics.workerPIDs ?? []
        #expect(pids.count == 1)
        // When the isolator shuts down, none of its workers is left as a child of this process
        isolator.shutdown(grace: 0)
        #expect(Support.lingeringChildren(pids).isEmpty)
        // And replacing it replaces the policy and the pool at once: the next decode runs in process
        host.coders.isolator = .noWorkers
        #expect(try host.coders.decode(data: Support.input("ok")).width == 3)
        #expect(isolator.pool?.statistics.requests == 1)
        #expect(Support.failure { _ = try host.coders.decode(data: Support.input("ok"), isolation: .isolated) }?.code == 5000)
    }

    @Test func cancellingARequestKillsItsWorker() async throws {
        // Given an image manager whose decode of a file spins forever in a worker
        let folder = try Support.pluginFolder(with: ["libFileLoader.so"])
        let host = Support.host(folder)
        let pool = try Support.attachPool(to: host, size: 1, timeout: 600)
        let source = try TestPaths.temporaryDirectory() + "/spin.broken"
        try Data(Support.input("loop")).write(to: URL(fileURLWithPath: source))
        let manager = ImageManager(host: host, configuration: ImageManagerConfiguration(memoryCache: nil))
        let task = Task { try await manager.image(for: source) }
        // Whatever fails below, the spinning request and its worker end with the test (the next test counts mappings).
        defer { task.cancel(); pool.shutdown() }
        // (waiting, bounded, until the worker is spinning on this request: it has the request and burns CPU; the pool
        // records a worker's pid a moment after counting it live, so the wait covers both)
        try await Self.waitUntil("a worker takes the request") {
            let statistics = pool.statistics
            return statistics.requests == 1 && statistics.liveWorkers == 1 && !statistics.workerPIDs.isEmpty
        }
        let worker = try #require(pool.statistics.workerPIDs.last)
        let cpuAtStart = Self.cpuTicks(of: worker)
        try await Self.waitUntil("the worker spins") { Self.cpuTicks(of: worker) >= cpuAtStart + 5 }
        // When the request is cancelled
        task.cancel()
        // Then it fails as cancelled (not at the 600 s deadline) and the worker was killed
        let result = await task.result
        #expect(throws: PipelineError.cancelled) { try result.get() }
        // (the caller returns at once; the abandoned decode is stopped just after)
        try await Self.waitUntil("the pool counts the cancellation") { pool.statistics.cancellations == 1 }
        #expect(pool.statistics.cancellations == 1)
        #expect(pool.statistics.timeouts == 0)
    }

    @Test func resultsAreAdoptedFromSharedMemoryAndReleased() throws {
        let host = Support.host(try Support.pluginFolder())
        let pool = try Support.attachPool(to: host, size: 1)
        _ = try host.coders.decode(data: Support.input("ok"), isolation: .isolated)  // the worker's input arena is mapped now
        let before = Support.sharedMemoryMappings()
        var image: Image? = try host.coders.decode(data: Support.input("ok"), isolation: .isolated)
        // The image's pixels are the worker's memfd, mapped (not copied into the heap)
        #expect(Support.sharedMemoryMappings() == before + 1)
        #expect(image?.bytes.count == 24)
        image = nil
        #expect(Support.sharedMemoryMappings() == before)
        pool.shutdown()
    }

    @Test func aThousandRequestsLeaveNoZombiesMemoryOrDescriptors() throws {
        let host = Support.host(try Support.pluginFolder())
        let descriptorsBefore = Support.poolLikeDescriptors().count
        let pool = try Support.attachPool(to: host, size: 2, timeout: 2)
        // 1000 requests: mostly fine, some crashing, aborting or hanging
        var failures = 0
        for index in 0..<1000 {
            let mode = index % 100 == 7 ? "segv" : index % 100 == 57 ? "abort" : index % 250 == 99 ? "sleep" : "ok"
            do {
                let image = try host.coders.decode(data: Support.input(mode), isolation: .isolated, timeout: mode == "sleep" ? 0.2 : nil)
                #expect(image.pixel(x: 1, y: 1) == RGBA16Pixel(r: 80, g: 100, b: 50, a: 255))
            } catch {
                failures += 1
            }
        }
        #expect(failures == 24)
        let statistics = pool.statistics
        #expect(statistics.crashes == 20 && statistics.timeouts == 4)
        // One worker started on demand (requests come one at a time), and each failure replaced its worker once
        #expect(statistics.workersStarted == 1 + 24)
        pool.shutdown()
        // No worker is left alive or as a zombie; no memfd is open or mapped; no socket or other descriptor leaked
        #expect(Support.lingeringChildren(statistics.workerPIDs) == [])
        #expect(Support.openDescriptors().filter { $0.contains("memfd:imagepipe") } == [])
        #expect(Support.sharedMemoryMappings() == 0)
        // A leak stays; a descriptor another suite holds for a moment goes: recount for up to two seconds.
        var leaked = Support.poolLikeDescriptors().count - descriptorsBefore
        for _ in 0..<20 where leaked > 0 {
            usleep(100_000)
            leaked = Support.poolLikeDescriptors().count - descriptorsBefore
        }
        #expect(leaked <= 0, "SOCK_SEQPACKET sockets or memfds left open after the pool shut down")
    }
}

extension IsolationTests {
    /// Polls `condition` every 5 ms for at most 20 s; fails with `what` when it never holds.
    static func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TestSupportError("timed out waiting until \(what)") }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
    }

    /// User + system CPU time of `pid` in clock ticks (fields 14 and 15 of /proc/PID/stat), 0 when it is gone.
    static func cpuTicks(of pid: Int32) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return 0 }
        return user + system
    }
}
