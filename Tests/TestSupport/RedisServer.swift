import Foundation

/// A real `redis-server` (Debian's package) for the shared-tier tests: a free loopback port, a temporary folder,
/// no persistence; killed by `stop()`, `deinit` or the test process's end (it exits when its parent's pipe closes).
public final class RedisServer: @unchecked Sendable {
    // @unchecked: set in init, stopped under a lock.
    public let port: Int
    private var process: Process?
    private let folder: String
    private let lock = NSLock()

    /// nil (with a printed reason) when redis-server is not installed: the caller skips.
    public static func startIfAvailable(port: Int? = nil) throws -> RedisServer? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/redis-server") else { try Skip.because("/usr/bin/redis-server is missing (apt-get install redis-server)", bootstrapProvides: true) }
        if let port { return try RedisServer(port: port) }
        // A free port can be taken by another test's server between the check and the bind: try another one.
        for _ in 0..<2 { if let server = try? RedisServer() { return server } }
        return try RedisServer()
    }

    public init(port requested: Int? = nil) throws {
        folder = try TestPaths.temporaryDirectory("redis")
        port = try requested ?? Self.freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        process.arguments = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", folder]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        for _ in 0..<200 {
            // A server that could not bind its port has exited: a PONG on that port would be another test's server.
            guard process.isRunning else { break }
            if (try? CommandLine.run("/usr/bin/redis-cli", ["-p", String(port), "ping"]))?.stdout.contains("PONG") == true, process.isRunning { return }
            usleep(25_000)
        }
        stop()
        throw TestSupportError("redis-server did not answer on port \(port)")
    }

    deinit { stop() }

    /// "redis://127.0.0.1:<port>" + settings.
    public func configuration(_ settings: String = "") -> String {
        "redis://127.0.0.1:\(port)" + (settings.isEmpty ? "" : " " + settings)
    }

    /// Runs redis-cli against this server.
    public func cli(_ arguments: [String]) throws -> String {
        try CommandLine.run("/usr/bin/redis-cli", ["-p", String(port)] + arguments).stdout
    }

    /// Kills the server (SIGKILL: as if it crashed) and waits for it.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard let process else { return }
        self.process = nil
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// A port nothing listens on now.
    public static func freePort() throws -> Int {
        let (descriptor, port) = try LoopbackSocket.bound(listening: false)
        close(descriptor)
        return port
    }
}
