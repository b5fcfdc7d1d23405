import Foundation

/// A TCP proxy in front of the real store that answers the first `failures` requests itself, the way S3 answers
/// when it is overloaded (`503 SlowDown` with S3's XML body), or holds them without answering (`stall`), and passes
/// every later request through to the store byte for byte (so the signature, made for the proxy's Host, is checked
/// by the store itself). It counts the requests it saw. A fault injector on the path, not a stand-in for S3.
public final class FaultProxy: @unchecked Sendable {
    public let port: Int
    private let process: Process
    private let countFile: String
    /// The proxy exits when this pipe's write end closes: at stop(), or when the test process ends.
    private let lifeline: Pipe

    public enum Fault: String { case slowDown = "slowdown", stall }

    public init(upstream: Int, failures: Int, fault: Fault = .slowDown) throws {
        let folder = try TestPaths.temporaryDirectory("s3-fault-proxy")
        countFile = folder + "/count"
        let portFile = folder + "/port"
        // The proxy binds a port of its own choosing and names it: a port picked here and bound there could be
        // given to another test's server in between (see ClosedPort).
        let program = """
            import os, socket, sys, threading, time
            upstream, failures, fault, count_file, port_file = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
            seen = 0
            lock = threading.Lock()
            def pipe(a, b):
                try:
                    while True:
                        data = a.recv(65536)
                        if not data: break
                        b.sendall(data)
                except OSError: pass
                finally:
                    for s in (a, b):
                        try: s.shutdown(socket.SHUT_RDWR)
                        except OSError: pass
            def serve(client):
                global seen
                head = b""
                while b"\\r\\n\\r\\n" not in head:
                    chunk = client.recv(65536)
                    if not chunk: client.close(); return
                    head += chunk
                with lock:
                    seen += 1; number = seen
                    open(count_file, "w").write(str(seen))
                if number <= failures:
                    if fault == "stall":
                        # Holds the request unanswered and notes when the client gives up (its end of the connection);
                        # for longer than any test waits, so a test starved of threads under a full suite still finds
                        # the request held when it gets to act (the proxy ends with the test: lifeline below).
                        client.settimeout(900)
                        try:
                            while client.recv(65536): pass
                        except OSError: pass
                        open(count_file + ".closed", "w").write(repr(time.time()))
                        client.close(); return
                    body = b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>'
                    client.sendall(b"HTTP/1.1 503 Slow Down\\r\\nContent-Type: application/xml\\r\\nContent-Length: %d\\r\\nConnection: close\\r\\n\\r\\n" % len(body) + body)
                    client.close(); return
                store = socket.create_connection(("127.0.0.1", upstream))
                store.sendall(head)
                threading.Thread(target=pipe, args=(store, client), daemon=True).start()
                pipe(client, store)
            def lifeline():
                sys.stdin.buffer.read()  # end of input: the test process is gone (or stop() was called)
                os._exit(0)
            threading.Thread(target=lifeline, daemon=True).start()
            server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            server.bind(("127.0.0.1", 0)); server.listen(64)
            open(count_file, "w").write("0")
            open(port_file + ".tmp", "w").write(str(server.getsockname()[1])); os.rename(port_file + ".tmp", port_file)
            while True:
                connection, _ = server.accept()
                threading.Thread(target=serve, args=(connection,), daemon=True).start()
            """
        let process = Process(), lifeline = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", program, "\(upstream)", "\(failures)", fault.rawValue, countFile, portFile]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        _ = fcntl(lifeline.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
        process.standardInput = lifeline
        try process.run()
        let named = try LoopbackSocket.announced(by: process, in: portFile, name: "the fault proxy")
        (self.process, self.lifeline, port) = (process, lifeline, named)
    }

    /// Requests the proxy has seen (each connection carries one: the failures close theirs).
    public var requests: Int { Int((try? String(contentsOfFile: countFile, encoding: .utf8)) ?? "") ?? -1 }

    /// When (seconds since 1970) a stalled client closed its connection; nil before.
    public var stalledClientClosedAt: Double? {
        (try? String(contentsOfFile: countFile + ".closed", encoding: .utf8)).flatMap { Double($0) }
    }

    public var endpoint: String { "http://127.0.0.1:\(port)" }

    public func stop() {
        try? lifeline.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { if process.isRunning { process.terminate() } }
}
