import Foundation

/// A TCP port that accepts connections, counts them and never answers (a server that hangs): lets a test see how
/// often a client really went to the network, instead of timing it.
public final class CountingListener: @unchecked Sendable {
    public let port: Int
    private let process: Process
    private let countFile: String
    /// The listener exits when this pipe's write end closes: at stop(), or when the test process ends.
    private let lifeline: Pipe

    /// Without `requested`, the listener binds a port of its own choosing and names it, as FaultProxy does: a port
    /// picked here and bound there could be given to another test's server in between (see ClosedPort).
    public init(port requested: Int? = nil) throws {
        let folder = try TestPaths.temporaryDirectory("counting-listener")
        countFile = folder + "/count"
        let portFile = folder + "/port"
        let program = """
            import os, socket, sys, threading
            port, count_file, port_file = int(sys.argv[1]), sys.argv[2], sys.argv[3]
            held = []
            def lifeline():
                sys.stdin.buffer.read()
                os._exit(0)
            threading.Thread(target=lifeline, daemon=True).start()
            server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            server.bind(("127.0.0.1", port)); server.listen(64)
            open(count_file, "w").write("0")
            open(port_file + ".tmp", "w").write(str(server.getsockname()[1])); os.replace(port_file + ".tmp", port_file)
            while True:
                connection, _ = server.accept()
                held.append(connection)
                open(count_file + ".tmp", "w").write(str(len(held)))
                os.replace(count_file + ".tmp", count_file)
            """
        let process = Process(), lifeline = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", program, "\(requested ?? 0)", countFile, portFile]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        _ = fcntl(lifeline.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
        process.standardInput = lifeline
        try process.run()
        let named = try LoopbackSocket.announced(by: process, in: portFile, name: "the counting listener")
        (self.process, self.lifeline, port) = (process, lifeline, named)
    }

    /// Connections accepted so far.
    public var connections: Int { Int((try? String(contentsOfFile: countFile, encoding: .utf8)) ?? "") ?? -1 }

    /// Closes the port (and every connection it holds) and waits until it is free.
    public func stop() {
        try? lifeline.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { if process.isRunning { process.terminate() } }
}
