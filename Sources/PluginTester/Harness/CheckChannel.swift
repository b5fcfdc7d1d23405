#if canImport(Glibc)
import Glibc
#endif

/// The check child's line protocol to its parent, on a private copy of standard output.
///
/// Standard output itself is pointed at standard error before any plugin runs, so whatever a plugin prints cannot
/// corrupt the protocol. Lines: `progress <text>` before each risky step (so a crash or hang can be attributed to
/// the input that caused it), `description <json>` (the `load.dlopen` check), `result <json>` (always last).
/// Writes are single `write(2)` calls: nothing is buffered, so the parent sees every line up to a crash.
enum CheckChannel {
    /// `nonisolated(unsafe)`: set by `open` before any other thread exists; the fault handler writes to it.
    nonisolated(unsafe) private(set) static var fd: Int32 = 1

    /// Moves the protocol to a duplicate of fd 1 and sends fd 1 to stderr.
    static func open() {
        let copy = dup(1)
        if copy >= 0 {
            fd = copy
            _ = fcntl(copy, F_SETFD, FD_CLOEXEC)
            dup2(2, 1)
        }
    }

    static func send(_ kind: String, _ text: String) {
        let flat = text.replacingNewlines()
        let line = kind + " " + flat + "\n"
        _ = line.withCString { Glibc.write(fd, $0, strlen($0)) }
    }

    static func progress(_ text: String) { send("progress", text) }
}

extension String {
    /// One line: newlines become spaces (progress text can quote plugin messages).
    func replacingNewlines() -> String {
        String(map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
