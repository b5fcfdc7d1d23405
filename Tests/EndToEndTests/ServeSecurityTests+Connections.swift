import Foundation
import PipelineHost
import Testing
import TestSupport

/// ServeSecurityTests, the connections' part (item 5): one client cannot take every connection, and a request head
/// has a total deadline, not only an idle one.
extension ServeSecurityTests {
    // MARK: 5. One client holding connections open

    @Test("a slowloris client from one address gets at most --per-client-connections; /health from another answers; idle connections close")
    func oneClientCannotTakeEveryConnection() throws {
        let serve = try ServeProcess(["--allow-unsigned", "--per-client-connections", "8", "--connections", "40", "--idle-timeout", "2"])
        // 60 connections from 127.0.0.2, each sending a header byte a second for 4 s, and one silent connection from
        // 127.0.0.3; prints how many of the 60 the server kept open, then whether the silent one was closed.
        let program = """
            import socket, sys, time
            port = int(sys.argv[1])
            socks = []
            for _ in range(60):
                s = socket.socket(); s.bind(("127.0.0.2", 0))
                try:
                    s.connect(("127.0.0.1", port)); s.sendall(b"GET /health HTTP/1.1\\r\\nHost: x\\r\\n"); socks.append(s)
                except OSError:
                    pass
            silent = socket.socket(); silent.bind(("127.0.0.3", 0)); silent.connect(("127.0.0.1", port))
            open(sys.argv[2], "w").close()  # the attack is in place
            for second in range(4):
                time.sleep(1)
                for s in socks:
                    try: s.sendall(b"X")
                    except OSError: pass
            def is_open(s):
                s.setblocking(False)
                try:
                    return s.recv(1, socket.MSG_PEEK) != b""
                except BlockingIOError:
                    return True
                except OSError:
                    return False
            print(sum(1 for s in socks if is_open(s)))
            print("closed" if not is_open(silent) else "open")
            """
        let ready = folder + "/slowloris-ready"
        let attack = BackgroundRequest {
            let output = try python(program, ["\(serve.port)", ready])
            return HTTPReply(status: 200, headers: ["output": output], body: [])
        }
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: ready) { usleep(20_000) }
        #expect(FileManager.default.fileExists(atPath: ready), "the slowloris client never got going")
        for _ in 0..<5 {
            let health = try HTTPReply.fetch(serve.url("/health"))
            #expect(health.status == 200)
        }
        let lines = (try attack.wait().headers["output"] ?? "").split(separator: "\n")
        #expect(lines.count == 2)
        #expect(Int(lines.first ?? "") ?? 99 <= 8, "connections kept open from one client: \(lines)")
        #expect(lines.last == "closed", "a connection silent for longer than --idle-timeout stays open")
        #expect(serve.terminate() == 0)
    }

    @Test("a request head must be complete within --header-timeout: a byte every 0.3 s is cut, a kept-alive connection is not")
    func requestHeadsHaveADeadline() throws {
        let serve = try ServeProcess(["--allow-unsigned", "--header-timeout", "2", "--idle-timeout", "30"])
        // One client trickles a head (each byte resets an idle timeout, so only a total deadline ends it); another
        // asks for /health, waits 1 s on the kept-alive connection, asks again. Prints how long the trickle lasted
        // and the second client's two statuses.
        let program = """
            import socket, sys, time
            port = int(sys.argv[1])
            slow = socket.create_connection(("127.0.0.1", port)); slow.sendall(b"GET /health HTTP/1.1\\r\\nHost: x\\r\\n")
            began = time.monotonic(); ended = None
            while time.monotonic() - began < 8:
                time.sleep(0.3)
                try:
                    slow.sendall(b"X")
                    slow.setblocking(False)
                    if slow.recv(1, socket.MSG_PEEK) == b"": ended = time.monotonic(); break
                except BlockingIOError:
                    pass
                except OSError:
                    ended = time.monotonic(); break
                finally:
                    slow.setblocking(True)
            print("%.1f" % ((ended or time.monotonic()) - began) if ended else "open")
            kept = socket.create_connection(("127.0.0.1", port)); kept.settimeout(5)
            statuses = []
            for _ in range(2):
                kept.sendall(b"GET /health HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
                data = b""
                while b"ok\\n" not in data:
                    chunk = kept.recv(4096)
                    if not chunk: break
                    data += chunk
                statuses.append(data.split(b" ")[1].decode() if data else "closed")
                time.sleep(1)
            print(" ".join(statuses))
            """
        let lines = try python(program, ["\(serve.port)"]).split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(lines)")
        let lasted = Double(lines.first ?? "") ?? 99
        #expect(lasted >= 1.5 && lasted <= 4, "a trickled head lasted \(lines.first ?? "?") s with --header-timeout 2")
        #expect(lines.last == "200 200", "a kept-alive connection: \(lines)")
        let metrics = text(try serve.get("/metrics"))
        let cut = metrics.split(separator: "\n").first { $0.hasPrefix("imagepipe_http_header_timeouts_total ") }
        #expect(cut.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0 >= 1, "\(String(describing: cut))")
        #expect(serve.terminate() == 0)
    }
}
