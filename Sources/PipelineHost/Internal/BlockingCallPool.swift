import Foundation

/// Threads of the process's own for calls that block on the network: a shared cache tier's round trips (Redis,
/// S3), which take a millisecond when the store answers and up to their timeout when it does not.
///
/// Not Swift's cooperative pool (one thread per core: a blocked call would stall every other task), and not
/// Dispatch's global queues either: on Linux, libdispatch has no kernel feedback about blocked threads and adds
/// workers only slowly (16 calls of 0.5 s on 2 cores took 2.5 s there, not 0.5 s), so a service's cache calls
/// would wait for each other behind a slow store. Here a call starts at once on an idle thread, or on a new one
/// up to `maxThreads`; beyond that it waits its turn. Idle threads stay for the next calls.
package final class BlockingCallPool: @unchecked Sendable {
    // @unchecked: every field is read and written under `condition`.
    package static let shared = BlockingCallPool(maxThreads: 64)

    private let condition = NSCondition()
    private var pending: [@Sendable () -> Void] = []
    private var next = 0
    private var idle = 0
    private var threads = 0
    private let maxThreads: Int

    package init(maxThreads: Int) { self.maxThreads = maxThreads }

    /// `body`'s result, computed on one of the pool's threads.
    package func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            submit { continuation.resume(with: Result { try body() }) }
        }
    }

    private func submit(_ work: @escaping @Sendable () -> Void) {
        condition.lock()
        pending.append(work)
        // More calls waiting than idle threads to take them (idle threads already signalled count as taken).
        let grow = pending.count - next > idle && threads < maxThreads
        if grow { threads += 1 }
        condition.signal()
        condition.unlock()
        if grow {
            let thread = Thread { [self] in serve() }
            thread.name = "imagepipe-blocking"
            thread.stackSize = 512 * 1024
            thread.start()
        }
    }

    private func serve() {
        while true {
            condition.lock()
            while next == pending.count {
                idle += 1
                condition.wait()
                idle -= 1
            }
            let work = pending[next]
            next += 1
            // Compact now and then, so the array does not grow with every call ever made.
            if next == pending.count || next > 1024 {
                pending.removeFirst(next)
                next = 0
            }
            condition.unlock()
            work()
        }
    }
}
