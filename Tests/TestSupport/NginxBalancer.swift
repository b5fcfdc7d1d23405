import Foundation

/// A real nginx (Debian's package) as the load balancer in front of several `serve` instances: its own
/// configuration and temporary folders in a test folder, one loopback port, the upstreams given. It retries a
/// request on the next instance when one refuses the connection, resets it, times out or answers 502/503 — what a
/// deployment's balancer does — so a test can count what a user behind it would see. nginx runs under a small
/// supervisor that stops it (SIGQUIT to the master, then SIGKILL to its group) when `stop()` is called or the test
/// process ends, so no nginx outlives the test.
public final class NginxBalancer: @unchecked Sendable {
    // @unchecked: set in init; stopped under a lock.
    public static let binary = "/usr/sbin/nginx"
    public let port: Int
    public let folder: String
    private var supervisor: Process?
    private var lifeline: Pipe?
    private let lock = NSLock()

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
        let supervise = """
            import os, signal, subprocess, sys, time
            child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            try:
                sys.stdin.buffer.read()
            finally:
                try:
                    os.kill(child.pid, signal.SIGQUIT)
                    for _ in range(50):
                        if child.poll() is not None: break
                        time.sleep(0.1)
                    os.killpg(child.pid, signal.SIGKILL)
                except ProcessLookupError: pass
                child.wait()
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", supervise, Self.binary, "-p", folder, "-c", folder + "/nginx.conf"]
        let pipe = Pipe()
        _ = fcntl(pipe.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
        process.standardInput = pipe
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        supervisor = process
        lifeline = pipe
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
        lock.lock()
        defer { lock.unlock() }
        guard let supervisor else { return }
        self.supervisor = nil
        try? lifeline?.fileHandleForWriting.close()
        lifeline = nil
        supervisor.waitUntilExit()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
