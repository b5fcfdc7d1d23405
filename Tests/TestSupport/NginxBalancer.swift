import Foundation

/// A real nginx (Debian's package) as the load balancer in front of several `serve` instances: its own
/// configuration and temporary folders in a test folder, one loopback port, the upstreams given. It retries a
/// request on the next instance when one refuses the connection, resets it, times out or answers 502/503 — what a
/// deployment's balancer does — so a test can count what a user behind it would see. nginx runs under a small
/// `SupervisedProcess`, which stops it (SIGQUIT to the master, then SIGKILL to its group) when `stop()` is called or
/// the test process ends, so no nginx outlives the test.
public final class NginxBalancer: @unchecked Sendable {
    // @unchecked: set in init.
    public static let binary = "/usr/sbin/nginx"
    public let port: Int
    public let folder: String
    private var server: SupervisedProcess?

    /// nginx when it is installed and is nginx (its -v names it); else the test ends skipped (failed under make test).
    public static func requireBinary() throws {
        let version = try? CommandLine.run(binary, ["-v"])
        guard let version, (version.stderr + version.stdout).contains("nginx version: nginx/") else {
            try Skip.because("nginx (\(binary)) is not installed (scripts/bootstrap installs Debian's nginx)", bootstrapProvides: true)
        }
    }

    /// Starts nginx in front of `upstreams` (loopback ports), round robin, and waits until it answers.
    public init(upstreams: [Int]) throws {
        try Self.requireBinary()
        folder = try TestPaths.temporaryDirectory("nginx")
        port = try RedisServer.freePort()
        for sub in ["body", "proxy", "fastcgi", "uwsgi", "scgi"] {
            try FileManager.default.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true)
        }
        let servers = upstreams.map { "        server 127.0.0.1:\($0) max_fails=1 fail_timeout=5s;" }.joined(separator: "\n")
        // As root the workers would drop to "nobody", who cannot write the test's folders.
        let user = getuid() == 0 ? "user root root;\n" : ""
        let configuration = """
            \(user)daemon off;
            worker_processes 1;
            pid \(folder)/nginx.pid;
            error_log \(folder)/error.log warn;
            events { worker_connections 512; }
            http {
                access_log \(folder)/access.log;
                client_body_temp_path \(folder)/body;
                proxy_temp_path \(folder)/proxy;
                fastcgi_temp_path \(folder)/fastcgi;
                uwsgi_temp_path \(folder)/uwsgi;
                scgi_temp_path \(folder)/scgi;
                upstream imagepipe {
            \(servers)
                    keepalive 16;
                }
                server {
                    listen 127.0.0.1:\(port);
                    location / {
                        proxy_pass http://imagepipe;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_set_header Host $host;
                        proxy_next_upstream error timeout http_502 http_503;
                        proxy_next_upstream_tries \(upstreams.count);
                        proxy_connect_timeout 1s;
                        proxy_read_timeout 30s;
                    }
                }
            }
            """
        try configuration.write(toFile: folder + "/nginx.conf", atomically: true, encoding: .utf8)
        let check = try CommandLine.run(Self.binary, ["-t", "-p", folder, "-c", folder + "/nginx.conf"])
        guard check.status == 0 else { throw TestSupportError("nginx -t refused the test's configuration: \(check.stderr)") }
        server = try SupervisedProcess([Self.binary, "-p", folder, "-c", folder + "/nginx.conf"], gentle: SIGQUIT)
        for _ in 0..<200 {
            if let answer = try? CommandLine.run("/usr/bin/curl", ["-s", "-m", "2", "-o", "/dev/null", "-w", "%{http_code}", url("/health")]),
               answer.stdout != "000" {
                return
            }
            usleep(25_000)
        }
        let log = (try? String(contentsOfFile: folder + "/error.log", encoding: .utf8)) ?? ""
        stop()
        throw TestSupportError("nginx did not answer on port \(port): \(log.suffix(600))")
    }

    deinit { stop() }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// What nginx logged as errors (an upstream it gave up on, a retry it made).
    public var errorLog: String { (try? String(contentsOfFile: folder + "/error.log", encoding: .utf8)) ?? "" }

    public func stop() {
        server?.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
