import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Threads of the CLI's own for work that blocks: a decode waiting on its worker process, a C decoder, an encoder,
/// a file write. Kept off Swift's cooperative pool (one thread per core), where a lane blocked on a worker would
/// idle a core that the next lane's encode could use.
enum LaneThreads {
    /// Runs `body` on `count` new threads and returns when every one has returned.
    static func run(_ count: Int, _ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let group = DispatchGroup()
            for _ in 0..<count {
                group.enter()
                startThread { body(); group.leave() }
            }
            group.notify(queue: .global()) { done.resume() }
        }
    }

    /// Waits on this (non-cooperative) thread for async work, such as a load through the image manager.
    static func wait<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let semaphore = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        Task {
            box.result = await Result { try await work() }
            semaphore.signal()
        }
        semaphore.wait()
        return try box.result!.get()
    }

    private static func startThread(_ body: @escaping @Sendable () -> Void) {
        final class Start: Sendable { let body: @Sendable () -> Void; init(_ b: @escaping @Sendable () -> Void) { body = b } }
        let context = Unmanaged.passRetained(Start(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 8 << 20)  // C decoders recurse (libxml, poppler): a main thread's stack
        var thread = pthread_t()
        let started = pthread_create(&thread, &attributes, { raw in
            let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
            start.body()
            return nil
        }, context)
        if started != 0 {
            Unmanaged<Start>.fromOpaque(context).takeRetainedValue().body()  // no thread: run here rather than lose it
        } else {
            pthread_detach(thread)
        }
    }
}

/// Hands a result from a task to the thread waiting on the semaphore.
private final class ResultBox<T: Sendable>: Sendable {
    private let stored = Mutex<Result<T, Error>?>(nil)
    var result: Result<T, Error>? {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}

extension Result where Failure == Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
