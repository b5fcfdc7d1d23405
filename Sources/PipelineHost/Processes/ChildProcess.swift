#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A child process whose standard output is read line by line against a deadline: the one primitive behind
/// crash-safe plugin scanning (`PluginScanner`) and the CLI's per-check children (`imagepipe plugin test`).
///
/// posix_spawn rather than Foundation's `Process`: the host avoids full Foundation (start-up cost), and the
/// child must start in its own process group (so a watchdog can kill whatever it spawned) with default signal
/// dispositions and an empty signal mask (so a crash is reported as the signal it is).
/// Not thread-safe: one owner reads, waits and kills.
public final class ChildProcess {
    /// How the child ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        public var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signaled(let signal): "killed by signal \(signal) (\(ChildProcess.signalName(signal)))"
            }
        }
    }

    /// What `nextLine` found.
    public enum LineEvent: Sendable, Equatable {
        case line(String)
        /// Standard output closed (the child exited or closed it).
        case end
        case timedOut
    }

    public let pid: pid_t
    private var outFD: Int32
    private var errFD: Int32
    private var inFD: Int32 = -1
    private var outBuffer: [UInt8] = []
    private var errBuffer: [UInt8] = []
    private var termination: Termination?
    /// Standard error is kept up to this many bytes (the tail wins), so a chatty child cannot exhaust memory.
    private let errorLimit = 64 * 1024

    /// Starts `executable` with `arguments` (argv[0] is the executable), stdin from /dev/null, stdout and stderr
    /// captured, in the parent's environment with `overrides` applied. By default SWIFT_BACKTRACE=enable=no: a
    /// crashing Swift child then dies at once instead of symbolicating its backtrace for seconds.
    ///
    /// With `holdStandardInput`, stdin is a pipe this object keeps open until `closeStandardInput()` or the end:
    /// helpers that serve "until stdin closes" (test servers) then never outlive their parent. With
    /// `currentDirectory`, the child starts there (the parent's own directory is never changed: it is process-wide).
    public init(executable: String, arguments: [String], overrides: [String: String] = ["SWIFT_BACKTRACE": "enable=no"],
                holdStandardInput: Bool = false, currentDirectory: String? = nil) throws {
        // Pipes are created and the child spawned under one lock, so a child spawned by another thread meanwhile
        // cannot inherit these pipes (there is no pipe2 in Swift's Glibc: close-on-exec is set in a second step).
        let (spawned, outRead, errRead, inWrite) = try ChildProcess.spawnLock.withLock { _ -> (pid_t, Int32, Int32, Int32) in
            var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1], inPipe: [Int32] = [-1, -1]
            func closeAll() { for fd in outPipe + errPipe + inPipe where fd >= 0 { close(fd) } }
            guard pipe(&outPipe) == 0, pipe(&errPipe) == 0, !holdStandardInput || pipe(&inPipe) == 0 else {
                let text = ChildProcess.errnoText()
                closeAll()
                throw ChildProcessError("pipe: \(text)")
            }
            for fd in outPipe + errPipe + inPipe where fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            defer { close(outPipe[1]); close(errPipe[1]); if inPipe[0] >= 0 { close(inPipe[0]) } }
            do {
                let pid = try ChildProcess.spawn(executable, arguments, overrides: overrides, stdin: inPipe[0], stdout: outPipe[1],
                                                 stderr: errPipe[1], currentDirectory: currentDirectory)
                return (pid, outPipe[0], errPipe[0], inPipe[1])
            } catch {
                close(outPipe[0]); close(errPipe[0]); if inPipe[1] >= 0 { close(inPipe[1]) }
                throw error
            }
        }
        pid = spawned
        outFD = outRead
        errFD = errRead
        inFD = inWrite
    }

    /// Closes the child's standard input (when held): a helper serving until EOF then exits.
    public func closeStandardInput() {
        if inFD >= 0 { close(inFD); inFD = -1 }
    }

    private static let spawnLock = Mutex(())

    /// glibc ≥ 2.29's `posix_spawn_file_actions_addchdir_np`, looked up at run time: Swift's Glibc module does not
    /// export it (it sits behind `__USE_GNU`). The change of directory happens in the child only.
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private static let addChdir: AddChdir? = {
        guard let symbol = dlsym(nil /* RTLD_DEFAULT */, "posix_spawn_file_actions_addchdir_np") else { return nil }
        return unsafeBitCast(symbol, to: AddChdir.self)
    }()

    private static func spawn(_ executable: String, _ arguments: [String], overrides: [String: String],
                              stdin: Int32, stdout: Int32, stderr: Int32, currentDirectory: String?) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let currentDirectory {
            guard let addChdir = ChildProcess.addChdir else {
                throw ChildProcessError("cannot start \(executable) in \(currentDirectory): this C library has no posix_spawn_file_actions_addchdir_np")
            }
            guard addChdir(&actions, currentDirectory) == 0 else { throw ChildProcessError("chdir action: \(ChildProcess.errnoText())") }
        }
        if stdin >= 0 {
            posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t(), empty = sigset_t()
        sigemptyset(&empty)
        sigemptyset(&defaults)
        for signal in 1..<32 where signal != SIGKILL && signal != SIGSTOP { sigaddset(&defaults, Int32(signal)) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        switch ProcessSpawn.spawn(executable, arguments, overrides: overrides, actions: &actions, attributes: &attributes) {
        case .success(let child): return child
        case .failure(let failure): throw ChildProcessError("cannot start \(executable): \(failure)")
        }
    }



    deinit {
        if termination == nil {
            kill()
            _ = wait(until: ChildProcess.now() + 5)
        }
        if outFD >= 0 { close(outFD) }
        if errFD >= 0 { close(errFD) }
        closeStandardInput()
    }

    /// The next line of standard output (without its newline), the end of output, or a timeout at `deadline`
    /// (a `ChildProcess.now()` value in seconds). Standard error is drained meanwhile.
    public func nextLine(until deadline: Double) -> LineEvent {
        while true {
            if let newline = outBuffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: outBuffer[..<newline], as: UTF8.self)
                outBuffer.removeSubrange(...newline)
                return .line(line)
            }
            if outFD < 0 {
                if outBuffer.isEmpty { return .end }
                defer { outBuffer.removeAll() }
                return .line(String(decoding: outBuffer, as: UTF8.self))
            }
            let remaining = deadline - ChildProcess.now()
            if remaining <= 0 { return .timedOut }
            pump(timeoutMilliseconds: Int32(min(remaining * 1000 + 1, 60_000)))
        }
    }

    /// Everything left on standard output until it closes or `deadline` passes (then nil).
    public func readToEnd(until deadline: Double) -> [UInt8]? {
        while outFD >= 0 {
            let remaining = deadline - ChildProcess.now()
            if remaining <= 0 { return nil }
            pump(timeoutMilliseconds: Int32(min(remaining * 1000 + 1, 60_000)))
        }
        defer { outBuffer.removeAll() }
        return outBuffer
    }

    /// What the child wrote to standard error so far (at most the last 64 KiB).
    public var errorText: String {
        if errFD >= 0 { pump(timeoutMilliseconds: 0) }
        return String(decoding: errBuffer, as: UTF8.self)
    }

    /// Kills the child's whole process group (the watchdog's last word).
    public func kill() {
        guard termination == nil else { return }
        _ = Glibc.kill(-pid, SIGKILL)
        _ = Glibc.kill(pid, SIGKILL)
    }

    /// Waits for the child to end; nil when it is still running at `deadline`.
    public func wait(until deadline: Double) -> Termination? {
        if let termination { return termination }
        while true {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                let signal = status & 0x7F
                termination = signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
                // Read what the child left in the pipes before it died.
                if errFD >= 0 || outFD >= 0 { pump(timeoutMilliseconds: 0) }
                return termination
            }
            if result < 0 && errno != EINTR { termination = .exited(-1); return termination }
            if ChildProcess.now() >= deadline { return nil }
            // Drain the pipes while waiting so a child blocked on a full pipe can finish.
            if outFD >= 0 || errFD >= 0 { pump(timeoutMilliseconds: 10) } else { usleep(2000) }
        }
    }

    /// Waits up to `seconds`, then kills: the termination, or nil when the watchdog had to kill it.
    public func finish(within seconds: Double) -> Termination? {
        if let ended = wait(until: ChildProcess.now() + seconds) { return ended }
        kill()
        _ = wait(until: ChildProcess.now() + 5)
        return nil
    }

    /// Reads whatever is ready on either pipe, waiting at most `timeoutMilliseconds` for something.
    private func pump(timeoutMilliseconds: Int32) {
        var fds: [pollfd] = []
        if outFD >= 0 { fds.append(pollfd(fd: outFD, events: Int16(POLLIN), revents: 0)) }
        if errFD >= 0 { fds.append(pollfd(fd: errFD, events: Int16(POLLIN), revents: 0)) }
        guard !fds.isEmpty else { return }
        let ready = poll(&fds, nfds_t(fds.count), timeoutMilliseconds)
        guard ready > 0 else { return }
        var chunk = [UInt8](repeating: 0, count: 65536)
        for entry in fds where entry.revents != 0 {
            let count = read(entry.fd, &chunk, chunk.count)
            if count > 0 {
                if entry.fd == outFD {
                    outBuffer += chunk[0..<count]
                } else {
                    errBuffer += chunk[0..<count]
                    if errBuffer.count > errorLimit { errBuffer.removeFirst(errBuffer.count - errorLimit) }
                }
            } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                close(entry.fd)
                if entry.fd == outFD { outFD = -1 } else { errFD = -1 }
            }
        }
    }

    /// Monotonic seconds, for deadlines.
    public static func now() -> Double { LinuxSystem.now() }

    /// "SIGSEGV" for 11 and so on.
    public static func signalName(_ signal: Int32) -> String { LinuxSystem.signalName(signal) }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}

public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
