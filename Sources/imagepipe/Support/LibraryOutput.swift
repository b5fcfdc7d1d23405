import PipelineHost
#if canImport(Glibc)
import Glibc
#endif

/// Keeps what C libraries print on standard error out of the CLI's own error line.
///
/// Decoders print on file descriptor 2 by themselves (dav1d's "Unknown OBU type 0 of size 63156", libxml's parser
/// chatter) before the coder returns its error, so a failure showed two or three lines of which only the last was
/// the CLI's. The CLI points descriptor 2 at an anonymous memory file for the whole run and writes its own lines to
/// a duplicate of the real standard error. Nothing is lost where it matters:
///
/// - `IMAGEPIPE_LIBRARY_STDERR=show` leaves descriptor 2 alone (the libraries' messages appear as they come);
/// - if the process dies of a fatal signal, the handler first copies what the libraries wrote (the last 16 KiB, which
///   holds the Swift runtime's own fatal-error message) to the real standard error, then lets the signal's previous
///   handler (the Swift backtracer, or the default action) run with descriptor 2 restored.
enum LibraryOutput {
    /// Where the CLI's own messages go: the real standard error (2 until `capture` moves the libraries aside).
    /// `nonisolated(unsafe)` here and below: written once by `capture` before any other thread starts, then read by
    /// signal handlers, where no lock may be taken.
    nonisolated(unsafe) private(set) static var standardError: Int32 = 2
    /// The memory file that descriptor 2 points at; -1 before `capture`.
    nonisolated(unsafe) private static var captured: Int32 = -1
    /// The handlers that were installed before ours, by signal number.
    nonisolated(unsafe) private static var previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
    nonisolated(unsafe) private static var copyBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 4096)
    private static let keptOnCrash = 16 << 10
    private static let fatalSignals = [SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGTRAP, SIGFPE]

    /// Moves the libraries' descriptor 2 aside. Call once, early in the CLI's main, before any plugin is opened.
    static func capture() {
        if let mode = getenv("IMAGEPIPE_LIBRARY_STDERR"), String(cString: mode) == "show" { return }
        let saved = fcntl(2, F_DUPFD_CLOEXEC, 3)
        guard saved >= 0 else { return }
        // Not close-on-exec: descriptor 2 of a program the CLI starts (a worker) goes to the same place.
        let memory = memoryFile()
        guard memory >= 0, dup2(memory, 2) == 2 else {
            close(saved)
            if memory >= 0 { close(memory) }
            return
        }
        close(memory)
        standardError = saved
        HostLog.descriptor = saved
        captured = 2
        for signal in fatalSignals {
            var action = sigaction()
            action.__sigaction_handler.sa_sigaction = { signal, info, context in
                LibraryOutput.restoreAndReplay()
                let old = LibraryOutput.previous + Int(signal)
                // Hand the signal on: the previous handler (the Swift backtracer) prints to the real stderr now.
                sigaction(signal, old, nil)
                if old.pointee.sa_flags & Int32(SA_SIGINFO) != 0, let handler = old.pointee.__sigaction_handler.sa_sigaction {
                    handler(signal, info, context)
                } else {
                    raise(signal)
                }
            }
            action.sa_flags = Int32(SA_SIGINFO) | Int32(SA_ONSTACK)
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, previous + Int(signal))
        }
    }

    /// An anonymous in-memory file (glibc's memfd_create, looked up at run time as Glibc's module map omits it).
    private static func memoryFile() -> Int32 {
        typealias MemfdCreate = @convention(c) (UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "memfd_create") else { return -1 }
        return unsafeBitCast(symbol, to: MemfdCreate.self)("imagepipe-library-stderr", 0)
    }

    /// Async-signal-safe: copies the tail of the captured output to the real stderr and points descriptor 2 back.
    private static func restoreAndReplay() {
        guard captured == 2 else { return }
        captured = -1
        let end = lseek(2, 0, SEEK_END)
        var offset = max(0, end - off_t(keptOnCrash))
        while offset < end {
            let count = pread(2, copyBuffer, 4096, offset)
            if count <= 0 { break }
            _ = write(standardError, copyBuffer, count)
            offset += off_t(count)
        }
        dup2(standardError, 2)
    }
}
