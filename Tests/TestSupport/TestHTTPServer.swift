import Foundation

/// A real HTTP server on 127.0.0.1 for loader tests: runs Tests/HTTPTestServer/http_test_server.py in a child process.
///
/// The child prints its port on the first line of stdout and exits when its stdin closes, so it ends with
/// `stop()`, with `deinit`, or with this process, whichever comes first. See the script for the endpoints.
///
/// ```swift
/// let server = try TestHTTPServer(root: folder)   // serves folder/<name> as /<name>
/// server.url("/image.png")                        // "http://127.0.0.1:<port>/image.png"
/// try server.requestCount("/image.png")           // requests the server has seen for that path
/// server.stop()
/// ```
///
/// `@unchecked Sendable`: the stored properties are set in `init` and only read afterwards, except the
/// process and pipe, which `stop()` handles under a lock.
public final class TestHTTPServer: @unchecked Sendable {
    public let port: Int
    public let root: String
    /// "http", or "https" when started with a certificate.
    let scheme: String
    private let process: Process
    private let input: Pipe
    private let lock = NSLock()
    private var stopped = false

    /// The script, found from the repository root (IMAGEPIPE_HTTP_TEST_SERVER overrides).
    public static var scriptPath: String {
        ProcessInfo.processInfo.environment["IMAGEPIPE_HTTP_TEST_SERVER"]
            ?? TestPaths.repositoryRoot + "/Tests/HTTPTestServer/http_test_server.py"
    }

    /// Starts the server and waits until it listens. Throws when python3 is missing or the script fails.
    /// With `tls` (PEM certificate and key files) it serves HTTPS.
    public init(root: String, tls: (certificate: String, key: String)? = nil) throws {
        self.root = root
        scheme = tls == nil ? "http" : "https"
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.scriptPath, "--root", root]
            + (tls.map { ["--tls-cert", $0.certificate, "--tls-key", $0.key] } ?? [])
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        var line: [UInt8] = []
        let reader = output.fileHandleForReading
        while true {
            let byte = try reader.read(upToCount: 1) ?? Data()
            guard let first = byte.first else {
                throw TestSupportError("the HTTP test server exited before printing its port (is python3 installed?)")
            }
            if first == UInt8(ascii: "\n") { break }
            line.append(first)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            throw TestSupportError("the HTTP test server printed '\(String(decoding: line, as: UTF8.self))', not a port")
        }
        self.port = port
    }

    deinit { stop() }

    /// "http://127.0.0.1:<port>" + path (path starts with "/"); "https://…" for a TLS server.
    public func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)\(path)" }

    /// Requests seen for `path` (without the query) since start or the last `resetCounts()`.
    public func requestCount(_ path: String) throws -> Int { try counts().requests[path] ?? 0 }

    /// TCP connections that made at least one counted request.
    public func connectionCount() throws -> Int { try counts().connections }

    public func resetCounts() throws { _ = try get("/count/reset") }

    /// Body bytes the server sent for files at `path` (whole answers and ranges), since start or the last reset.
    public func bytesSent(_ path: String) throws -> Int {
        let body = try get("/count")
        guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any], let bytes = object["bytes"] as? [String: Int] else {
            throw TestSupportError("unexpected /count answer: \(String(decoding: body, as: UTF8.self))")
        }
        return bytes[path] ?? 0
    }

    public func counts() throws -> (requests: [String: Int], connections: Int) {
        let body = try get("/count")
        guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let requests = object["requests"] as? [String: Int], let connections = object["connections"] as? Int else {
            throw TestSupportError("unexpected /count answer: \(String(decoding: body, as: UTF8.self))")
        }
        return (requests, connections)
    }

    /// Request headers the server received on /echo-headers, names lower-cased.
    public func echoedHeaders(_ body: [UInt8]) throws -> [String: String] {
        guard let headers = try JSONSerialization.jsonObject(with: Data(body)) as? [String: String] else {
            throw TestSupportError("unexpected /echo-headers answer: \(String(decoding: body, as: UTF8.self))")
        }
        return headers
    }

    /// Closes the server's stdin (it exits at once) and reaps it; SIGTERM if it has not gone within 2 s.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        try? input.fileHandleForWriting.close()
        for _ in 0..<200 where process.isRunning { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// A plain HTTP/1.0 GET over a socket, so the tests do not need an HTTP client other than the one tested.
    private func get(_ path: String) throws -> [UInt8] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket() failed: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw TestSupportError("cannot connect to the test server: errno \(errno)") }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else {
            throw TestSupportError("cannot send to the test server: errno \(errno)")
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            response += buffer[..<count]
        }
        let separator = Array("\r\n\r\n".utf8)
        guard response.count >= 4, let end = (0...(response.count - 4)).first(where: { Array(response[$0..<$0 + 4]) == separator }) else {
            throw TestSupportError("malformed answer from the test server")
        }
        return Array(response[(end + 4)...])
    }
}
