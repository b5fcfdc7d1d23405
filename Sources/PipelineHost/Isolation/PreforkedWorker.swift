import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A worker forked at the very start of a short-lived program, so that its first isolated request does not pay
/// for starting a process.
///
/// Why: a one-shot `imagepipe render icon.svg` isolates SVG by default, and an exec'd worker costs a whole
/// program start (the Swift runtime, the registry) on the request's critical path: 6-14 ms against a 13 ms
/// rsvg-convert. A fork made while the program still has one thread is a safe copy of an already-started
/// runtime (no lock can be held by a thread that does not exist), costs well under a millisecond, and its setup
/// (the sandbox, a preloaded plugin) then overlaps the host's own work on another core.
///
/// The child waits for the pool's worker settings on its socket, then runs exactly the code an exec'd worker runs
/// (`WorkerServer.main`: sandbox, plugins, requests). If the host never isolates anything, closing the socket
/// (the host exiting) ends it. A program with more than one thread when `prepare` is called gets no preforked
/// worker, and pools then spawn workers as usual; so does every worker after the first.
///
/// The child belongs to whoever holds the value: it reaches a pool through its configuration (`Isolator`), never
/// through process-wide state, so only the pool it was given can adopt it.
public final class PreforkedWorker: Sendable {
    private struct Child {
        var pid: pid_t
        var socket: Int32
    }

    private let child: Mutex<Child?>

    private init(_ child: Child) { self.child = Mutex(child) }

    /// Forks the worker-to-be, if the process has a single thread; nil otherwise. Call first thing in `main`.
    ///
    /// `guess`, run in the child while it waits for its settings: the preload hint and plugin folders the host is
    /// expected to send (a program that can tell them from its command line). The child looks the hint up in the
    /// registry cache meanwhile, and uses the answer only if the settings then carry that hint and those folders.
    public static func prepare(guess: () -> (hint: PreloadHint, directories: [String])? = { nil }) -> PreforkedWorker? {
        guard threadCount() == 1 else { return nil }
        var fds: [Int32] = [-1, -1]
        let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &fds) == 0 else { return nil }
        let pid = fork()
        if pid == 0 {
            close(fds[0])
            childMain(socket: fds[1], guess: guess)
        }
        close(fds[1])
        guard pid > 0 else {
            close(fds[0])
            return nil
        }
        return PreforkedWorker(Child(pid: pid, socket: fds[0]))
    }

    deinit { discard() }

    /// Ends and reaps a child that was never taken: once the program exits it would be reparented to PID 1, and a
    /// container's PID 1 often reaps nothing, leaving a zombie per run. The child exits as soon as its socket closes.
    public func discard() {
        if let untaken = takeChild() { Self.end(untaken) }
    }

    /// True while a preforked child waits to be taken: starting a pool's worker now then costs one message.
    public var isAvailable: Bool { child.withLock { $0 != nil } }

    /// Hands the preforked child its worker arguments (those of `WorkerServer.main`, without `--socket-fd`) and
    /// returns its pid and the host end of its socket; nil when there is none (already taken, never made).
    func take(workerArguments: [String], inheritStandardError: Bool) -> (pid: pid_t, socket: Int32)? {
        guard let taken = takeChild() else { return nil }
        var message = Array((inheritStandardError ? "stderr" : "quiet").utf8)
        for argument in workerArguments { message += [0] + Array(argument.utf8) }
        let sent = message.withUnsafeBytes { send(taken.socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == message.count else {
            kill(taken.pid, SIGKILL)
            Self.end(taken)
            return nil
        }
        return (taken.pid, taken.socket)
    }

    /// The waiting child, removed from the slot so that exactly one caller gets it.
    private func takeChild() -> Child? {
        child.withLock { slot in
            defer { slot = nil }
            return slot
        }
    }

    /// Closes the child's socket (which ends a waiting child) and reaps it.
    private static func end(_ child: Child) {
        close(child.socket)
        var status: Int32 = 0
        while waitpid(child.pid, &status, 0) < 0, errno == EINTR {}
    }

    /// The child: waits for its settings, then becomes a worker. Never returns.
    private static func childMain(socket: Int32, guess: () -> (hint: PreloadHint, directories: [String])?) -> Never {
        // The registry-cache look-up of the plugin to preload, while the host parses its command line (the settings
        // come about 1.3 ms after the fork, the look-up takes about as long): the plugin's load, the longest step,
        // then starts as soon as the sandbox is on. (Nothing else runs here: perf probes showed a warm-up of the
        // protocol's JSON, 1.3 ms, only delaying that load.)
        let resolved = guess().map { ResolvedPreload(hint: $0.hint, directories: $0.directories) }
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { _exit(0) }  // the host is gone, or never needed a worker
        let parts = buffer[0..<count].split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        // What the spawner gives an exec'd worker: /dev/null for input and output (stderr unless inherited), an empty
        // signal mask, and glibc's malloc tuned as its environment would tune it (see WorkerSpawner).
        redirectToNull(0, flags: O_RDONLY)
        redirectToNull(1, flags: O_WRONLY)
        if parts.first != "stderr" { redirectToNull(2, flags: O_WRONLY) }
        var mask = sigset_t()
        sigemptyset(&mask)
        sigprocmask(SIG_SETMASK, &mask, nil)
        LinuxSystem.mallopt(LinuxSystem.M_ARENA_MAX, Int32(MallocTuning.arenaBound))
        LinuxSystem.mallopt(LinuxSystem.M_TOP_PAD, 16 << 20)
        WorkerServer.main(arguments: Array(parts.dropFirst()) + ["--socket-fd", String(socket)], resolved: resolved)
    }

    private static func redirectToNull(_ descriptor: Int32, flags: Int32) {
        let null = open("/dev/null", flags)
        guard null >= 0 else { return }
        if null != descriptor {
            dup2(null, descriptor)
            close(null)
        }
    }

    /// Threads of this process, from /proc/self/stat (field 20); 0 when it cannot be read (then no fork).
    private static func threadCount() -> Int {
        let fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0, let end = buffer[0..<count].lastIndex(of: UInt8(ascii: ")")) else { return 0 }
        // After "pid (comm)": field 3 (state) is the first; num_threads is field 20.
        let fields = buffer[(end + 1)..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 17 else { return 0 }
        return Int(String(decoding: fields[17], as: UTF8.self)) ?? 0
    }
}
