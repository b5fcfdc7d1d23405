import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Starts worker processes from one dedicated, never-ending thread.
///
/// Why a thread of its own: PR_SET_PDEATHSIG fires when the *thread* that created the child exits, not the
/// process. Spawning from a cooperative-pool or Dispatch thread (which the runtime retires when idle) would
/// randomly SIGKILL healthy workers; this thread lives as long as the process, so workers die exactly with it.
///
/// Children get: the socket as descriptor 3, /dev/null on 0, 1 (and 2 unless stderr is inherited), every other
/// descriptor closed (closefrom; and every descriptor the host opens is close-on-exec anyway), an empty signal
/// mask, and the host's environment plus SWIFT_BACKTRACE=enable=no (a crash is reported by the host, fast, not
/// symbolicated for seconds), MALLOC_ARENA_MAX=2 (glibc's 64 MiB-per-thread arena reservations would otherwise
/// eat the RLIMIT_AS cap) and MALLOC_TOP_PAD_=16 MiB (a young worker's heap otherwise shrinks and regrows on every
/// request: measured +4 ms on a 12 ms SVG render, +0.3 ms with the pad).
final class WorkerSpawner: Sendable {
    static let shared = WorkerSpawner()

    struct Job {
        var executable: String
        var arguments: [String]
        /// The worker's end of the socketpair; becomes descriptor 3 in the child.
        var socket: Int32
        var inheritStandardError: Bool
    }

    /// One spawn asked of the spawner thread; its result is written there and read by the requester (who waits
    /// on the monitor for it).
    private final class Request: Sendable {
        let job: Job
        let result = Mutex<Result<pid_t, SpawnError>?>(nil)
        init(_ job: Job) { self.job = job }
    }

    struct SpawnError: Error, CustomStringConvertible, Sendable {
        let description: String
    }

    private let monitor = Monitor<[Request]>([])

    private init() {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, nil, { context in
            let spawner = Unmanaged<WorkerSpawner>.fromOpaque(context!).takeUnretainedValue()
            spawner.serve()
        }, context)
        precondition(status == 0, "cannot start the worker spawner thread: \(LinuxSystem.describe(status))")
        pthread_detach(thread)
    }

    /// Starts a worker; returns its pid.
    func spawn(_ job: Job) throws -> pid_t {
        let request = Request(job)
        monitor.update { $0.append(request) }
        return try monitor.wait { _ in request.result.withLock { $0 } }.get()
    }

    private func serve() -> Never {
        while true {
            let request = monitor.wait { queue in queue.isEmpty ? nil : queue.removeFirst() }
            let result: Result<pid_t, SpawnError>
            do { result = .success(try Self.start(request.job)) } catch { result = .failure(error) }
            monitor.update { _ in request.result.withLock { $0 = result } }
        }
    }

    private static func start(_ job: Job) throws(SpawnError) -> pid_t {
        // Descriptor 3 must be a dup (dup2 onto itself would keep close-on-exec).
        var socket = job.socket
        var temporary: Int32 = -1
        if socket == 3 {
            temporary = fcntl(socket, F_DUPFD_CLOEXEC, 10)
            guard temporary >= 0 else { throw SpawnError(description: "dup: \(LinuxSystem.describe(errno))") }
            socket = temporary
        }
        defer { LinuxSystem.closeDescriptor(temporary) }

        let actions = UnsafeMutablePointer<posix_spawn_file_actions_t>.allocate(capacity: 1)
        let attributes = UnsafeMutablePointer<posix_spawnattr_t>.allocate(capacity: 1)
        posix_spawn_file_actions_init(actions)
        posix_spawnattr_init(attributes)
        defer {
            posix_spawn_file_actions_destroy(actions)
            posix_spawnattr_destroy(attributes)
            actions.deallocate()
            attributes.deallocate()
        }
        posix_spawn_file_actions_addopen(actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(actions, 1, "/dev/null", O_WRONLY, 0)
        if !job.inheritStandardError { posix_spawn_file_actions_addopen(actions, 2, "/dev/null", O_WRONLY, 0) }
        posix_spawn_file_actions_adddup2(actions, socket, 3)
        _ = LinuxSystem.addCloseFrom(actions, 4)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(attributes, &mask)
        posix_spawnattr_setflags(attributes, Int16(POSIX_SPAWN_SETSIGMASK))

        let overrides = ["SWIFT_BACKTRACE": "enable=no", "MALLOC_ARENA_MAX": String(MallocTuning.arenaBound), "MALLOC_TOP_PAD_": String(16 << 20)]
        switch ProcessSpawn.spawn(job.executable, job.arguments, overrides: overrides, actions: actions, attributes: attributes) {
        case .success(let pid): return pid
        case .failure(let failure):
            throw SpawnError(description: "cannot start the worker \(job.executable): \(LinuxSystem.describe(failure.number))")
        }
    }
}
