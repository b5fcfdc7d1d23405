#if canImport(Glibc)
import Glibc
#endif

/// The limits a worker puts on itself at start, before it reads any request.
///
/// - RLIMIT_AS: the memory cap (address space; glibc's arenas are capped through MALLOC_ARENA_MAX in the
///   worker's environment so that reservations do not eat it);
/// - RLIMIT_CORE 0: a crashing decoder leaves no core file behind;
/// - RLIMIT_CPU: per request (`limitCPU`), a backstop behind the host's wall-clock deadline;
/// - PR_SET_NO_NEW_PRIVS, PR_SET_PDEATHSIG(SIGKILL): no privilege gain through exec, death with the host;
/// - optionally the seccomp filter (`SeccompFilter`);
/// - fatal-signal handlers that tell a memory-cap death apart from any other crash (`WorkerExit.memoryExhausted`).
enum Sandbox {
    struct Settings {
        var memoryLimit: Int
        var parent: pid_t
        var seccomp: Bool
    }

    /// Applies everything; returns a description of what is in force, or throws a reason to stop.
    static func apply(_ settings: Settings) throws -> [String] {
        var applied: [String] = []
        // Die with the host. Checking the parent afterwards closes the race where it died before the prctl.
        LinuxSystem.prctl(LinuxSystem.PR_SET_PDEATHSIG, UInt(SIGKILL))
        if settings.parent > 0, getppid() != settings.parent { _exit(0) }
        applied.append("pdeathsig")
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &none)
        applied.append("no core dumps")
        if settings.memoryLimit > 0 {
            var cap = rlimit(rlim_cur: rlim_t(settings.memoryLimit), rlim_max: rlim_t(settings.memoryLimit))
            guard setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &cap) == 0 else { throw SandboxError("setrlimit(RLIMIT_AS): \(LinuxSystem.describe(errno))") }
            applied.append("RLIMIT_AS \(settings.memoryLimit)")
        }
        guard LinuxSystem.prctl(LinuxSystem.PR_SET_NO_NEW_PRIVS, 1) == 0 else {
            throw SandboxError("prctl(PR_SET_NO_NEW_PRIVS): \(LinuxSystem.describe(errno))")
        }
        applied.append("no new privileges")
        installFatalSignalHandlers(memoryLimit: settings.memoryLimit)
        if settings.seccomp {
            if let problem = SeccompFilter.install() { throw SandboxError(problem) }
            applied.append(SeccompFilter.summary)
        }
        return applied
    }

    /// Lets the coming request use `seconds` more CPU time (soft RLIMIT_CPU above what the worker used so far;
    /// SIGXCPU ends the worker when it is reached). The hard limit stays unlimited so it can be raised again.
    static func limitCPU(seconds: Int) {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let used = Int(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + 1
        var limit = rlimit(rlim_cur: rlim_t(used + max(1, seconds)), rlim_max: rlim_t.max)
        setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &limit)
    }

    // MARK: Fatal signals

    /// State the handler reads; written once before the handlers are installed.
    nonisolated(unsafe) private static var handlerState: UnsafeMutablePointer<HandlerState>?

    private struct HandlerState {
        var memoryLimit: Int
        var pageSize: Int
        var statmPath: UnsafeMutablePointer<CChar>
        var buffer: UnsafeMutablePointer<UInt8>
    }

    /// On SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGTRAP or SIGFPE: if the failing thread's errno is ENOMEM (an
    /// allocation just failed: glib, Rust and Swift abort or trap right after one) or the address space is within
    /// 5% of the cap, exit with `WorkerExit.memoryExhausted`; otherwise die of the same signal, so the host reports
    /// it. Runs on an alternate stack so that a stack overflow still reaches it. Async-signal-safe: open, read,
    /// close and _exit on preallocated buffers only.
    private static func installFatalSignalHandlers(memoryLimit: Int) {
        let state = UnsafeMutablePointer<HandlerState>.allocate(capacity: 1)
        state.initialize(to: HandlerState(memoryLimit: memoryLimit, pageSize: Int(sysconf(Int32(_SC_PAGESIZE))),
                                          statmPath: strdup("/proc/self/statm"), buffer: .allocate(capacity: 64)))
        handlerState = state
        let stackSize = 256 << 10
        var stack = stack_t(ss_sp: malloc(stackSize), ss_flags: 0, ss_size: stackSize)
        sigaltstack(&stack, nil)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            if let state = Sandbox.handlerState, Sandbox.nearMemoryCap(state) { _exit(WorkerExit.memoryExhausted) }
            Glibc.signal(signal, SIG_DFL)
            raise(signal)
        }
        action.sa_flags = Int32(SA_ONSTACK) | Int32(bitPattern: UInt32(SA_RESETHAND))
        sigemptyset(&action.sa_mask)
        for signal in [SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGTRAP, SIGFPE] { sigaction(signal, &action, nil) }
    }

    private static func nearMemoryCap(_ state: UnsafeMutablePointer<HandlerState>) -> Bool {
        if errno == ENOMEM { return true }
        guard state.pointee.memoryLimit > 0 else { return false }
        let fd = open(state.pointee.statmPath, O_RDONLY)
        guard fd >= 0 else { return false }
        let count = read(fd, state.pointee.buffer, 63)
        close(fd)
        guard count > 0 else { return false }
        var pages = 0
        for index in 0..<count {
            let c = state.pointee.buffer[index]
            guard c >= 48, c <= 57 else { break }
            pages = pages * 10 + Int(c - 48)
        }
        return pages * state.pointee.pageSize >= state.pointee.memoryLimit / 20 * 19
    }
}

/// Exit statuses a worker uses on purpose (anything else, or a signal, is a crash).
enum WorkerExit {
    /// The decoder hit the memory cap (see `Sandbox`).
    static let memoryExhausted: Int32 = 86
    /// The worker could not start (bad arguments, sandbox refused).
    static let startupFailed: Int32 = 70
}

struct SandboxError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
