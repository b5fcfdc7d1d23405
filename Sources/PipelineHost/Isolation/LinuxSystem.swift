#if canImport(Glibc)
import Glibc
#endif

/// The Linux calls isolation needs that Swift's Glibc module does not import (they sit behind _GNU_SOURCE, or are
/// variadic), resolved once with dlsym, plus the few constants of <linux/memfd.h>, <linux/prctl.h> and <fcntl.h>.
///
/// Kept in one file so that the rest of the isolation code reads as plain POSIX. `prctl` is variadic in C; glibc's
/// implementation reads its four optional arguments as unsigned longs (it never looks at %al), so calling it through
/// a fixed five-argument prototype is exact on x86-64 and AArch64 Linux.
enum LinuxSystem {
    static let MFD_CLOEXEC: UInt32 = 0x0001
    static let MFD_ALLOW_SEALING: UInt32 = 0x0002
    static let F_ADD_SEALS: Int32 = 1033
    static let F_GET_SEALS: Int32 = 1034
    static let F_SEAL_SEAL: Int32 = 0x0001
    static let F_SEAL_SHRINK: Int32 = 0x0002
    static let F_SEAL_GROW: Int32 = 0x0004
    static let F_SEAL_WRITE: Int32 = 0x0008
    static let PR_SET_PDEATHSIG: Int32 = 1
    static let PR_SET_DUMPABLE: Int32 = 4
    static let PR_SET_SECCOMP: Int32 = 22
    static let PR_SET_NO_NEW_PRIVS: Int32 = 38
    static let SECCOMP_MODE_FILTER: UInt = 2

    private typealias MemfdCreate = @convention(c) (UnsafePointer<CChar>, UInt32) -> Int32
    private typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
    private typealias Syscall3 = @convention(c) (Int, UInt, UInt, UInt) -> Int
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    private typealias MallocTrim = @convention(c) (Int) -> Int32

    private static func symbol<T>(_ name: String, as type: T.Type) -> T? {
        guard let handle = dlopen(nil, RTLD_NOW), let pointer = dlsym(handle, name) else { return nil }
        return unsafeBitCast(pointer, to: type)
    }

    private static let memfdCreateFunction = symbol("memfd_create", as: MemfdCreate.self)
    private static let prctlFunction = symbol("prctl", as: Prctl.self)
    private static let syscallFunction = symbol("syscall", as: Syscall3.self)
    private static let addCloseFromFunction = symbol("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self)
    private static let malloptFunction = symbol("mallopt", as: Mallopt.self)
    private static let mallocTrimFunction = symbol("malloc_trim", as: MallocTrim.self)

    /// glibc's <malloc.h> parameters the worker tunes (not exported by the Glibc module).
    static let M_TRIM_THRESHOLD: Int32 = -1
    static let M_TOP_PAD: Int32 = -2
    static let M_MMAP_THRESHOLD: Int32 = -3
    static let M_ARENA_MAX: Int32 = -8

    /// glibc's mallopt, for what MALLOC_ARENA_MAX / MALLOC_TOP_PAD_ do at exec time; false when it failed.
    @discardableResult
    static func mallopt(_ parameter: Int32, _ value: Int32) -> Bool { malloptFunction?(parameter, value) == 1 }

    /// glibc's malloc_trim: returns free pages of every arena to the kernel (not only the top of the main heap);
    /// true when some memory was released.
    @discardableResult
    static func mallocTrim(keeping pad: Int = 0) -> Bool { mallocTrimFunction?(pad) == 1 }

    /// An anonymous shared-memory file (memfd_create), close-on-exec; -1 with errno on failure.
    static func memfdCreate(_ name: String, sealable: Bool) -> Int32 {
        guard let function = memfdCreateFunction else { errno = ENOSYS; return -1 }
        return name.withCString { function($0, MFD_CLOEXEC | (sealable ? MFD_ALLOW_SEALING : 0)) }
    }

    @discardableResult
    static func prctl(_ option: Int32, _ a: UInt = 0, _ b: UInt = 0, _ c: UInt = 0, _ d: UInt = 0) -> Int32 {
        guard let function = prctlFunction else { errno = ENOSYS; return -1 }
        return function(option, a, b, c, d)
    }

    /// A raw system call with three arguments (glibc's `syscall` is variadic in C but reads integer registers only).
    static func syscall3(_ number: Int, _ a: UInt, _ b: UInt, _ c: UInt) -> Int {
        guard let function = syscallFunction else { errno = ENOSYS; return -1 }
        return function(number, a, b, c)
    }

    /// Asks posix_spawn to close every descriptor from `lowest` up in the child (glibc 2.34+); false when unavailable.
    static func addCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) -> Bool {
        guard let function = addCloseFromFunction else { return false }
        return function(actions, lowest) == 0
    }

    /// The text of an errno value.
    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// The conventional name of a signal number (SIGSEGV ...), or "signal N".
    /// The one table of the host and the CLI (`ChildProcess.signalName` is its public face).
    static func signalName(_ signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP", SIGABRT: "SIGABRT",
            SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGUSR1: "SIGUSR1", SIGSEGV: "SIGSEGV", SIGUSR2: "SIGUSR2",
            SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM", SIGCHLD: "SIGCHLD", SIGXCPU: "SIGXCPU",
            SIGXFSZ: "SIGXFSZ", SIGSYS: "SIGSYS",
        ]
        return names[signal] ?? "signal \(signal)"
    }

    /// Monotonic seconds, for deadlines (the one clock of the host; `ChildProcess.now` is its public face).
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Number of online processors (at least 1).
    static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// One environment variable, read with getenv. Why not `ProcessInfo.processInfo.environment`: that builds a
    /// dictionary of the whole environment on each call, which perf showed among a one-shot command's start-up costs
    /// (about 5 % of the time before its first request) for the two or three names it wants.
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// A regular file's bytes, if it is at most `limit` bytes; nil when it is missing, unreadable, not a regular file
    /// or larger. With plain system calls: Foundation's `Data(contentsOf:)` builds an error (metadata, a message) for
    /// each missing file, and an optional configuration file is usually missing.
    static func readSmallFile(_ path: String, limit: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { closeDescriptor(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size <= limit else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size) + 1)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            filled += count
        }
        guard filled <= limit else { return nil }  // grew while being read
        return Array(bytes[0..<filled])
    }

    /// Closes a descriptor, ignoring EINTR (Linux releases the descriptor even then).
    static func closeDescriptor(_ fd: Int32) {
        if fd >= 0 { _ = Glibc.close(fd) }
    }
}
