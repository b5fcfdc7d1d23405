#if canImport(Glibc)
import Glibc
#endif

/// Threads of the process's own for calls that block on the network: a shared cache tier's round trips (Redis,
/// S3), which take a millisecond when the store answers and up to their timeout when it does not.
///
/// Not Swift's cooperative pool (one thread per core: a blocked call would stall every other task), and not
/// Dispatch's global queues either: on Linux, libdispatch has no kernel feedback about blocked threads and adds
/// workers only slowly (16 calls of 0.5 s on 2 cores took 2.5 s there, not 0.5 s), so a service's cache calls
/// would wait for each other behind a slow store. Here a call starts at once on an idle thread, or on a new one
/// up to `maxThreads`; beyond that it waits its turn. Idle threads stay for the next calls.
///
/// Plain pthreads, not Foundation's `Thread`/`NSCondition`: importing Foundation links libFoundation and ICU into
/// every binary using the host (30 MB of relocations on each start of the CLI).
package final class BlockingCallPool: Sendable {
    package static let shared = BlockingCallPool(maxThreads: 64)

    private struct State {
        var pending: [@Sendable () -> Void] = []
        var next = 0
        /// Threads started; those not `busy` are idle or about to take a call already signalled to them.
        var threads = 0
        var busy = 0
    }

    private let monitor = Monitor(State())
    private let maxThreads: Int

    package init(maxThreads: Int) { self.maxThreads = maxThreads }

    /// `body`'s result, computed on one of the pool's threads.
    package func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            submit { continuation.resume(with: Result { try body() }) }
        }
    }

    private func submit(_ work: @escaping @Sendable () -> Void) {
        let grow = monitor.updateWakingOne { state in
            state.pending.append(work)
            // More calls waiting than threads free to take them.
            let grow = state.pending.count - state.next > state.threads - state.busy && state.threads < maxThreads
            if grow { state.threads += 1 }
            return grow
        }
        if grow && !startThread() {
            monitor.withLock { $0.threads -= 1 }
            serveOne()  // no thread to be had: run the call here rather than lose it
        }
    }

    /// Takes the next call, waiting for one.
    private func take() -> @Sendable () -> Void {
        monitor.wait { state -> (@Sendable () -> Void)? in
            guard state.next < state.pending.count else { return nil }
            let work = state.pending[state.next]
            state.next += 1
            state.busy += 1
            // Compact now and then, so the array does not grow with every call ever made.
            if state.next == state.pending.count || state.next > 1024 {
                state.pending.removeFirst(state.next)
                state.next = 0
            }
            return work
        }
    }

    private func serveOne() {
        take()()
        monitor.withLock { $0.busy -= 1 }
    }

    private func startThread() -> Bool {
        let context = Unmanaged.passRetained(self).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 512 * 1024)
        var thread = pthread_t()
        let started = pthread_create(&thread, &attributes, { raw in
            let pool = Unmanaged<BlockingCallPool>.fromOpaque(raw!).takeRetainedValue()
            while true { pool.serveOne() }
        }, context)
        guard started == 0 else {
            Unmanaged<BlockingCallPool>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}
