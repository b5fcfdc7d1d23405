import Foundation

/// A server a test starts that must never outlive it (SeaweedFS, nginx): run in a session of its own under a small
/// Python supervisor that holds a pipe from the test process. When the pipe closes — `stop()`, or the test process
/// ending however it ends — the supervisor signals the server's whole process group (`gentle` first, if given, for
/// up to 5 s, then SIGKILL), waits for it, then removes the files the server leaves outside the test's folder
/// (`leftovers`: SeaweedFS's gRPC sockets, which it always makes in /tmp).
public final class SupervisedProcess: @unchecked Sendable {
    // @unchecked: set in init; stopped under a lock.
    private var supervisor: Process?
    private var lifeline: Pipe?
    private let lock = NSLock()

    /// Starts `command` with its output into `log` (nil: discarded).
    public init(_ command: [String], log: String? = nil, gentle: Int32? = nil, leftovers: [String] = []) throws {
        let supervise = """
            import os, signal, subprocess, sys, time
            log = open(sys.argv[1], "w") if sys.argv[1] != "-" else subprocess.DEVNULL
            gentle = int(sys.argv[2])
            leftovers = [path for path in sys.argv[3].split("\\n") if path]
            child = subprocess.Popen(sys.argv[4:], stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
            try:
                sys.stdin.buffer.read()
            finally:
                try:
                    if gentle:
                        os.killpg(child.pid, gentle)
                        for _ in range(50):
                            if child.poll() is not None: break
                            time.sleep(0.1)
                    os.killpg(child.pid, signal.SIGKILL)
                except ProcessLookupError: pass
                child.wait()
                for path in leftovers:
                    try: os.unlink(path)
                    except OSError: pass
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", supervise, log ?? "-", String(gentle ?? 0), leftovers.joined(separator: "\n")] + command
        let pipe = Pipe()
        // Only the supervisor may hold the pipe open: a later child inheriting the write end would keep the server
        // alive after the test process is gone.
        _ = fcntl(pipe.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
        process.standardInput = pipe
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        supervisor = process
        lifeline = pipe
    }

    deinit { stop() }

    /// Ends the server and waits until it is gone.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard let supervisor else { return }
        self.supervisor = nil
        try? lifeline?.fileHandleForWriting.close()
        lifeline = nil
        supervisor.waitUntilExit()
    }
}
