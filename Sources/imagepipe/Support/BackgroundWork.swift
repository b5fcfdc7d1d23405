import Synchronization

/// Work the CLI starts on another core only to save wall time (the output encoder's plugin opened while the source
/// loads and decodes), which the process must not exit in the middle of.
///
/// Why: `exit` runs static destructors and the dynamic linker's finalisers while such a thread may still be inside
/// `dlopen`. `scripts/fuzz` caught that as a SIGSEGV in memcpy under the preload, about once in 20,000 TIFF renders
/// that failed within milliseconds, which the Swift backtracer then turned into a hang. The CLI drains this before
/// it exits; on the success path the work is long done, and a failure waits at most for one plugin to open.
enum BackgroundWork {
    private static let pending = Mutex<[Task<Void, Never>]>([])

    static func start(_ body: @escaping @Sendable () -> Void) {
        let task = Task.detached(priority: .utility) { body() }
        pending.withLock { $0.append(task) }
    }

    /// Waits for everything `start` began.
    static func drain() async {
        let tasks = pending.withLock { tasks in
            defer { tasks = [] }
            return tasks
        }
        for task in tasks { await task.value }
    }
}
