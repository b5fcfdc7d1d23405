import Foundation
import PipelineHost
import PluginAPI
import Testing
import TestSupport

/// Transport failures: size limits, cut connections, timeouts, unreachable servers, malformed requests.
@Suite("HTTP loader: failures")
struct HTTPLoaderFailureTests {
    @Test("a Content-Length over max_bytes is LIMIT_EXCEEDED before any body byte is delivered")
    func limitByContentLength() throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        // 100 MB announced: if the loader read the body before refusing, this would take a while.
        let outcome = try RawHTTPLoader().load(served.url("/big?bytes=100000000"), maxBytes: 1000)
        #expect(outcome.status == IP_STATUS_LIMIT_EXCEEDED)
        #expect(outcome.message == "the body of 100000000 bytes (Content-Length) exceeds the limit of 1000 bytes")
        #expect(outcome.body.isEmpty)
        #expect(outcome.followsContract)
    }

    @Test("a body without a length that grows past max_bytes is LIMIT_EXCEEDED as soon as it does")
    func limitByStream() throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let outcome = try RawHTTPLoader().load(served.url("/big-no-length?bytes=100000000"), maxBytes: 200_000)
        #expect(outcome.status == IP_STATUS_LIMIT_EXCEEDED)
        #expect(outcome.message == "the body exceeds the limit of 200000 bytes")
        // Delivered bytes never pass the limit; the chunk that would have is withheld.
        #expect(outcome.body.count <= 200_000)
        #expect(outcome.body == HTTPLoaderTesting.pattern(count: outcome.body.count))
        #expect(outcome.followsContract)
    }

    @Test("the limit counts decoded bytes: a small gzip body that inflates past max_bytes is LIMIT_EXCEEDED")
    func limitAfterDecoding() throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        // 50 MB of a repeating pattern compresses to a few hundred kB, under the 1 MB limit.
        let outcome = try RawHTTPLoader().load(served.url("/gzip?bytes=50000000"), maxBytes: 1_000_000)
        #expect(outcome.status == IP_STATUS_LIMIT_EXCEEDED)
        #expect(outcome.message == "the body exceeds the limit of 1000000 bytes")
        #expect(outcome.body.count <= 1_000_000)
        #expect(outcome.followsContract)
    }

    @Test("the limits reach the host as loadingFailed(.limitExceeded)", arguments: ["/big?bytes=5000", "/big-no-length?bytes=5000"])
    func limitThroughHost(path: String) async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let error = await HTTPLoaderTesting.loadError(
            try HTTPLoaderTesting.loaders(), served.url(path), options: LoadOptions(maxBytes: 4999))
        #expect(error?.status == .limitExceeded)
    }

    @Test("a body exactly at max_bytes loads")
    func exactlyAtLimit() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let loaders = try HTTPLoaderTesting.loaders()
        for path in ["/big?bytes=5000", "/big-no-length?bytes=5000"] {
            #expect(try await loaders.load(url: served.url(path), options: LoadOptions(maxBytes: 5000)).count == 5000)
        }
    }

    @Test("a connection cut mid-body is TRUNCATED: \"connection closed after 300 of 1000 bytes\"")
    func cutMidBody() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let error = await HTTPLoaderTesting.loadError(try HTTPLoaderTesting.loaders(), served.url("/cut?bytes=1000&after=300"))
        #expect(error?.status == .truncated)
        #expect(HTTPLoaderTesting.message(of: error).hasPrefix("connection closed after 300 of 1000 bytes"),
                "\(HTTPLoaderTesting.message(of: error))")
    }

    @Test("a transfer slower than its timeout is IO \"timed out after N ms\"")
    func timeout() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        // 100 chunks, 100 ms apart: 10 s in all, against a 0.5 s timeout.
        let error = await HTTPLoaderTesting.loadError(
            try HTTPLoaderTesting.loaders(), served.url("/slow?bytes=10000&delay=100&chunk=100"),
            options: LoadOptions(timeout: 0.5))
        #expect(error?.status == .io)
        let message = HTTPLoaderTesting.message(of: error)
        #expect(message.hasPrefix("timed out after "), "\(message)")
        #expect(message.hasSuffix("(timeout 500 ms)"), "\(message)")
    }

    @Test("a port nobody listens on is IO \"cannot connect\"")
    func refused() async throws {
        // Start and stop a server to get a port that was free a moment ago.
        let served = try HTTPLoaderTesting.server()
        let url = served.url("/image.png")
        served.close()
        let error = await HTTPLoaderTesting.loadError(try HTTPLoaderTesting.loaders(), url)
        #expect(error?.status == .io)
        #expect(HTTPLoaderTesting.message(of: error).hasPrefix("cannot connect"), "\(HTTPLoaderTesting.message(of: error))")
    }

    @Test("a host name that cannot resolve is IO \"cannot resolve the host name\"")
    func unresolvable() async throws {
        // .invalid is reserved (RFC 2606) and never resolves.
        let error = await HTTPLoaderTesting.loadError(try HTTPLoaderTesting.loaders(), "http://no-such-host.invalid/a.png")
        #expect(error?.status == .io)
        #expect(HTTPLoaderTesting.message(of: error).hasPrefix("cannot resolve the host name"),
                "\(HTTPLoaderTesting.message(of: error))")
    }

    @Test("https goes to a TLS server, and a self-signed certificate is refused with IO",
          .enabled(if: CommandLine.hasTool("openssl"), "openssl is needed to make a certificate"))
    func selfSignedCertificate() async throws {
        let folder = try TestPaths.temporaryDirectory("imagepipe-httploader-tls")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let certificate = folder + "/cert.pem", key = folder + "/key.pem"
        let made = try CommandLine.run("/usr/bin/env", [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1"])
        try #require(made.status == 0, "\(made.stderr)")
        let server = try TestHTTPServer(root: folder, tls: (certificate, key))
        defer { server.stop() }
        let error = await HTTPLoaderTesting.loadError(try HTTPLoaderTesting.loaders(), server.url("/cert.pem"))
        #expect(error?.status == .io)
        #expect(HTTPLoaderTesting.message(of: error).contains("certificate"), "\(HTTPLoaderTesting.message(of: error))")
    }

    @Test("start() refuses bad requests at once, with no callback: malformed URL, other scheme, header with a line break")
    func refusedAtStart() throws {
        let raw = try RawHTTPLoader()
        let cases: [(url: String, headers: [String], status: Int32, message: String)] = [
            ("http://exa mple.com/a.png", [], IP_STATUS_INVALID_DATA, "malformed URL 'http://exa mple.com/a.png'"),
            ("ftp://example.com/a.png", [], IP_STATUS_UNSUPPORTED, "the HTTP loader reads http:// and https:// URLs, not ftp: URLs"),
            ("example.com/a.png", [], IP_STATUS_INVALID_DATA, "malformed URL"),
            ("http://example.com/", ["X-A: 1\r\nX-B: 2"], IP_STATUS_INVALID_DATA, "request header contains a line break"),
            ("http://example.com/", ["no colon"], IP_STATUS_INVALID_DATA, "request header is not 'Name: value'"),
        ]
        for item in cases {
            let recording = Recording()
            #expect(throws: RefusedStart.self) { _ = try raw.start(item.url, headers: item.headers, recording: recording) }
            do {
                _ = try raw.start(item.url, headers: item.headers)
            } catch let refused as RefusedStart {
                #expect(refused.status == item.status, "\(item.url)")
                #expect(refused.message.hasPrefix(item.message), "\(refused.message)")
            }
            #expect(recording.outcome(finished: false).events.isEmpty)
        }
    }
}
