import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PipelineHost

/// A real `imagepipe serve` process on a free loopback port, for the service tests; requests go through curl
/// (the same HTTP a user's client speaks). Killed with SIGKILL by `deinit` unless `terminate()` ended it.
public final class ServeProcess: @unchecked Sendable {
    // @unchecked: set in init; the process is ended under a lock.
    public let port: Int
    public let key: [UInt8]
    public let salt: [UInt8]
    private let process: Process
    private let errors = LockedText()
    private let lock = NSLock()

    public static let defaultKey: [UInt8] = Array("imagepipe-test-key".utf8)
    public static let defaultSalt: [UInt8] = Array("imagepipe-test-salt".utf8)

    /// Starts `imagepipe serve --listen 127.0.0.1:0` with `arguments` (signing key and salt, the plugin folder and
    /// the access log are added) and waits for its "listening" line.
    public init(_ arguments: [String], key: [UInt8] = ServeProcess.defaultKey, salt: [UInt8] = ServeProcess.defaultSalt) throws {
        self.key = key
        self.salt = salt
        process = Process()
        process.executableURL = URL(fileURLWithPath: TestPaths.imagepipeBinary)
        process.arguments = ["serve", "--listen", "127.0.0.1:0", "--key", Self.hex(key), "--salt", Self.hex(salt),
                             "--plugin-dir", TestPaths.pluginsDirectory] + arguments
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Standard error is drained by blocking reads on a thread of its own, not by a readabilityHandler: tearing
        // down the dispatch read source behind one races libdispatch's epoll bookkeeping on Linux
        // (swift-corelibs-libdispatch issue 949) and crashed a CI run in _dispatch_event_loop_drain. A blocking read
        // registers nothing with libdispatch; the thread ends at end of file, when serve has exited.
        let errors = self.errors
        let reader = error.fileHandleForReading
        Thread {
            // read(2), not FileHandle.read(upToCount:), which waits for the whole count or the end of the file.
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(reader.fileDescriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                errors.append(String(decoding: buffer[..<count], as: UTF8.self))
            }
        }.start()
        var line: [UInt8] = []
        let listening = output.fileHandleForReading
        while true {
            guard let byte = try listening.read(upToCount: 1)?.first else {
                usleep(100_000)
                throw TestSupportError("imagepipe serve exited before listening: \(errors.text)")
            }
            if byte == UInt8(ascii: "\n") { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else {
            throw TestSupportError("imagepipe serve printed '\(text)', not its address")
        }
        self.port = port
    }

    deinit {
        lock.lock()
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        lock.unlock()
    }

    /// What the process wrote on standard error so far (access log lines, warnings).
    public var standardError: String { errors.text }

    public var pid: Int32 { process.processIdentifier }

    /// Sends SIGTERM and waits up to `seconds` for the exit; returns the exit status (nil if it did not exit).
    public func terminate(within seconds: Double = 10) -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// "/<signature>" + path, signed with this service's key and salt (imgproxy's scheme).
    public func signed(_ path: String) -> String {
        let code = HMACSHA256.authenticationCode(key: key, message: salt + Array(path.utf8))
        return "/" + Self.base64URL(code) + path
    }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// One GET (or `method`) through curl: status, headers (lower-cased names) and body.
    public func get(_ path: String, headers: [String: String] = [:], method: String = "GET") throws -> HTTPReply {
        try HTTPReply.fetch(url(path), headers: headers, method: method)
    }

    /// The PNG the service answers for `options` applied to `source` (a "plain/…" part), decoded by `coders`, and its
    /// ETag: the one request of the processing tests, each comparing results and their cache entries.
    public func png(_ options: String, of source: String, coders: CodersManager) throws -> (image: Image, etag: String) {
        let response = try get(signed("/" + options + "/f:png/" + source))
        guard response.status == 200 else { throw UnexpectedStatus(status: response.status, options: options, body: response.body) }
        return (try coders.decode(data: response.body), response.headers["etag"] ?? "")
    }

    public struct UnexpectedStatus: Error, CustomStringConvertible {
        public let status: Int, options: String, body: [UInt8]
        public var description: String { "\(options): status \(status): \(String(decoding: body, as: UTF8.self))" }
    }

    public static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    public static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The source part of a URL: percent-encoded after /plain/.
    public static func plain(_ source: String) -> String {
        "plain/" + (source.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? source)
    }
}

/// An HTTP answer as curl saw it.
public struct HTTPReply: Sendable {
    public let status: Int
    public let headers: [String: String]
    public let body: [UInt8]

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static func fetch(_ url: String, headers: [String: String] = [:], method: String = "GET") throws -> HTTPReply {
        let folder = try TestPaths.temporaryDirectory("curl")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var arguments = ["-s", "-o", folder + "/body", "-D", folder + "/headers", "-w", "%{http_code}", "--max-time", "60"]
        if method == "HEAD" { arguments.append("-I") } else if method != "GET" { arguments += ["-X", method] }
        for (name, value) in headers { arguments += ["-H", "\(name): \(value)"] }
        let run = try CommandLine.run("/usr/bin/curl", arguments + [url])
        guard let status = Int(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), status > 0 else {
            throw TestSupportError("curl \(url) failed: \(run.stdout) \(run.stderr)")
        }
        var parsed: [String: String] = [:]
        let text = (try? String(contentsOfFile: folder + "/headers", encoding: .utf8)) ?? ""
        for line in text.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            parsed[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let body = (try? Data(contentsOf: URL(fileURLWithPath: folder + "/body"))).map { [UInt8]($0) } ?? []
        return HTTPReply(status: status, headers: parsed, body: body)
    }
}

/// Text appended from one thread and read from another.
final class LockedText: @unchecked Sendable {
    private let lock = NSLock()
    private var value = ""
    func append(_ text: String) { lock.lock(); value += text; lock.unlock() }
    var text: String { lock.lock(); defer { lock.unlock() }; return value }
}

/// A request run on a thread of its own: neither Swift's cooperative pool nor Dispatch's default-priority pool (both
/// as wide as the machine has cores, so two synchronous test bodies on 2 cores can hold every thread) would be sure
/// to start it while the test waits for it to be in flight.
public final class BackgroundRequest: @unchecked Sendable {
    // @unchecked: `result` is written once before `done` is signalled and read only after waiting on it.
    private var result: Result<HTTPReply, Error>?
    private let done = DispatchSemaphore(value: 0)

    public init(_ body: @escaping @Sendable () throws -> HTTPReply) {
        let thread = Thread {
            self.result = Result { try body() }
            self.done.signal()
        }
        thread.start()
    }

    public func wait() throws -> HTTPReply {
        done.wait()
        return try result!.get()
    }
}

extension ServeProcess {
    /// Waits until the service reports `count` requests in progress (admitted: fetching, queued or rendering), e.g.
    /// a request for a stalled origin that is surely in flight.
    public func waitForRequestsInProgress(_ count: Int, timeout: Double = 10) throws {
        try waitForGauge("imagepipe_requests_in_progress", count, timeout: timeout)
    }

    /// Waits until the service reports `count` renders holding a render slot.
    public func waitForRendersInFlight(_ count: Int, timeout: Double = 10) throws {
        try waitForGauge("imagepipe_renders_in_flight", count, timeout: timeout)
    }

    private func waitForGauge(_ name: String, _ count: Int, timeout: Double) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var metrics = ""
        while Date() < deadline {
            metrics = String(decoding: try get("/metrics").body, as: UTF8.self)
            if metrics.contains("\(name) \(count)\n") { return }
            usleep(20_000)
        }
        let gauge = metrics.split(separator: "\n").filter { $0.contains("in_flight") || $0.contains("in_progress") || $0.contains("requests_total{") }
        throw TestSupportError("the service never had \(name) = \(count): \(gauge); stderr: \(standardError.suffix(600))")
    }
}
