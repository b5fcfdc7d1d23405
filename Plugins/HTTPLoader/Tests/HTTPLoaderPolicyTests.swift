import Foundation
import PipelineHost
import PluginAPI
import Testing
import TestSupport

/// The destination and time policy of a load: non-public addresses refused on request (SSRF), a first-byte
/// deadline, and no redirects when asked for none. Every server here is on 127.0.0.1, which is exactly what the
/// refusal must stop.
@Suite("HTTP loader: destination and first-byte policy")
struct HTTPLoaderPolicyTests {
    static let refuse = UInt32(IP_LOAD_REFUSE_PRIVATE_ADDRESSES)

    @Test("with the flag, loopback, private, link-local and mapped addresses are refused before any request is sent",
          arguments: [
              ("127.0.0.1", "loopback (127.0.0.0/8)"), ("localhost", "loopback"), ("[::1]", "loopback (::1)"),
              ("[::ffff:127.0.0.1]", "loopback (127.0.0.0/8)"), ("0.0.0.0", "unspecified (0.0.0.0/8)"),
              ("10.1.2.3", "private (10.0.0.0/8)"), ("192.168.7.7", "private (192.168.0.0/16)"),
              ("169.254.169.254", "link-local (169.254.0.0/16)"), ("100.64.0.1", "carrier-grade NAT (100.64.0.0/10)"),
          ])
    func refused(host: String, reason: String) throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let url = "http://\(host):\(served.server.port)/image.png"
        let started = Date()
        let outcome = try RawHTTPLoader().start(url, flags: Self.refuse).wait()
        #expect(outcome.status == IP_STATUS_REFUSED, "\(url): \(outcome.message)")
        #expect(outcome.message.contains("a \(reason)") && outcome.message.contains("public addresses only"), "\(outcome.message)")
        #expect(outcome.response == nil && outcome.body.isEmpty)
        // Refused before connecting: no wait for an unreachable private address, nothing reached the server.
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(try served.server.requestCount("/image.png") == 0)
        // Without the flag the loopback server answers (the refusal is the flag's doing).
        if host == "127.0.0.1" {
            #expect(try RawHTTPLoader().start(url).wait().body == served.image)
        }
    }

    @Test("a connection opened without the flag is not reused to send a request with it")
    func reusedConnectionIsChecked() throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let loader = try RawHTTPLoader()
        let url = served.url("/image.png")
        // The first load leaves its connection in the shared engine's cache; the second would reuse it without
        // opening a socket, so only the check before each request can stop it.
        #expect(try loader.start(url).wait().body == served.image)
        let outcome = try loader.start(url, flags: Self.refuse).wait()
        #expect(outcome.status == IP_STATUS_REFUSED && outcome.message.contains("refused to connect to 127.0.0.1"), "\(outcome.message)")
        #expect(try served.server.requestCount("/image.png") == 1)
    }

    @Test("a server that accepts and never answers fails at the first-byte timeout, not the whole timeout")
    func firstByteTimeout() throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let started = Date()
        let outcome = try RawHTTPLoader().start(served.url("/stall?ms=5000"), timeoutMilliseconds: 20_000,
                                                firstByteTimeoutMilliseconds: 300).wait()
        let elapsed = Date().timeIntervalSince(started)
        #expect(outcome.status == IP_STATUS_IO && outcome.message.contains("first-byte timeout"), "\(outcome.message)")
        // Bounded by the first-byte deadline (0.3 s), far from the 5 s stall or the 20 s total.
        #expect(elapsed < 3, "took \(elapsed) s")
        // A server that answers within the deadline is unaffected.
        #expect(try RawHTTPLoader().start(served.url("/stall?ms=50"), firstByteTimeoutMilliseconds: 2_000).wait().body == served.image)
    }

    @Test("IP_LOAD_NO_REDIRECTS makes the 302 itself the response; LoadOptions(maxRedirects: 0) asks for it")
    func noRedirects() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let outcome = try RawHTTPLoader().start(served.url("/redirect?n=1"), flags: UInt32(IP_LOAD_NO_REDIRECTS)).wait()
        #expect(outcome.status == IP_STATUS_OK && outcome.response?.status == 302)
        #expect(try served.server.requestCount("/image.png") == 0)
        let error = await HTTPLoaderTesting.loadError(try HTTPLoaderTesting.loaders(), served.url("/redirect?n=1"),
                                                      options: LoadOptions(maxRedirects: 0))
        #expect(error != nil)
        #expect(try served.server.requestCount("/image.png") == 0)
    }
}
