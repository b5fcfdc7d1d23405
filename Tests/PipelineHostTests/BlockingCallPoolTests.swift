import Foundation
import PipelineHost
import Synchronization
import Testing

/// The threads that run a shared cache's blocking round trips: calls start at once, side by side (a rendezvous that
/// no call passes until all have arrived), up to the pool's bound, and the queue beyond it drains.
@Suite("BlockingCallPool")
struct BlockingCallPoolTests {
    /// Shared by the calls of one test (a class: closures capture it by reference).
    final class Shared<Value: Sendable>: Sendable {
        let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
    }

    @Test("24 blocking calls run side by side: each waits until all 24 have started")
    func sideBySide() async throws {
        let pool = BlockingCallPool(maxThreads: 32)
        let arrived = Shared(0)
        let met = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<24 {
                group.addTask {
                    try await pool.run {
                        arrived.value.withLock { $0 += 1 }
                        // Up to 20 s for the others: on Dispatch's global queues on 2 cores they arrive a few at a time.
                        for _ in 0..<2_000 {
                            if arrived.value.withLock({ $0 }) == 24 { return true }
                            usleep(10_000)
                        }
                        return false
                    }
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(met == 24)
    }

    struct Tally: Sendable {
        var now = 0
        var most = 0
    }

    @Test("beyond maxThreads calls wait their turn: never more than 3 at once, and all 20 finish, errors passed back")
    func bounded() async throws {
        let pool = BlockingCallPool(maxThreads: 3)
        let running = Shared(Tally())
        struct Odd: Error {}
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<20 {
                group.addTask {
                    do {
                        return try await pool.run {
                            running.value.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                            usleep(20_000)
                            running.value.withLock { $0.now -= 1 }
                            if index % 2 == 1 { throw Odd() }
                            return true
                        }
                    } catch {
                        return false
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.count == 20 && outcomes.filter { $0 }.count == 10)
        #expect(running.value.withLock { $0.most } <= 3 && running.value.withLock { $0.most } >= 2, "\(running.value.withLock { $0 })")
    }
}
