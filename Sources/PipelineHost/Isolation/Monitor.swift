#if canImport(Glibc)
import Glibc
#endif

/// State guarded by a mutex with a condition variable, for threads that must block until the state changes
/// (a request waiting for a free worker). `Synchronization.Mutex` has no condition, hence pthreads.
///
/// `@unchecked Sendable`: `state` is only touched with `mutex` held; the pthread objects live on the heap
/// (never moved) for the object's lifetime.
final class Monitor<State>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var state: State

    init(_ state: State) {
        self.state = state
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }

    /// Blocks until `body` returns non-nil (re-evaluated after every broadcast), then returns its value.
    func wait<R>(_ body: (inout State) throws -> R?) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            if let value = try body(&state) { return value }
            pthread_cond_wait(condition, mutex)
        }
    }

    /// Changes the state and wakes every waiter.
    func update<R>(_ body: (inout State) throws -> R) rethrows -> R {
        try change(body, wake: pthread_cond_broadcast)
    }

    /// Changes the state and wakes one waiter: for a queue where any one waiter can take what was added.
    func updateWakingOne<R>(_ body: (inout State) throws -> R) rethrows -> R {
        try change(body, wake: pthread_cond_signal)
    }

    private func change<R>(_ body: (inout State) throws -> R,
                           wake: (UnsafeMutablePointer<pthread_cond_t>) -> Int32) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer {
            _ = wake(condition)
            pthread_mutex_unlock(mutex)
        }
        return try body(&state)
    }
}
