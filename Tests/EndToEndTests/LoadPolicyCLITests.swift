import Foundation
import Testing
import TestSupport

/// The download policy flags of the CLI, against a real server on 127.0.0.1.
@Suite("CLI: download policy")
struct LoadPolicyCLITests {
    /// A served folder holding image.png (rendered from the samples by the CLI itself).
    private static func serve() throws -> (TestHTTPServer, String) {
        let folder = try TestPaths.temporaryDirectory("imagepipe-policy")
        let made = try CommandLine.run(TestPaths.imagepipeBinary, ["render", TestPaths.repositoryRoot + "/samples/badge.svg",
                                                                   "--size", "32x0", "-o", folder + "/image.png"])
        guard made.status == 0 else { throw TestSupportError("render: \(made.stderr)") }
        return (try TestHTTPServer(root: folder), folder)
    }

    private static func render(_ url: String, _ extra: [String], folder: String) throws -> ProcessResult {
        try CommandLine.run(TestPaths.imagepipeBinary, ["render", url, "-o", folder + "/out.png", "--no-cache",
                                                        "--plugin-dir", TestPaths.pluginsDirectory] + extra)
    }

    @Test("--refuse-private-addresses refuses a loopback URL with one line saying why; without it the render works")
    func refusePrivateAddresses() throws {
        let (server, folder) = try Self.serve()
        defer { server.stop(); try? FileManager.default.removeItem(atPath: folder) }
        let refused = try Self.render(server.url("/image.png"), ["--refuse-private-addresses"], folder: folder)
        #expect(refused.status == 1 && refused.stderr.contains("refused to connect to 127.0.0.1, a loopback"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(try server.requestCount("/image.png") == 0)
        #expect(try Self.render(server.url("/image.png"), [], folder: folder).status == 0)
    }

    @Test("--first-byte-timeout stops a server that never answers; --max-redirects 0 follows none")
    func firstByteAndRedirects() throws {
        let (server, folder) = try Self.serve()
        defer { server.stop(); try? FileManager.default.removeItem(atPath: folder) }
        let started = Date()
        let stalled = try Self.render(server.url("/stall?ms=8000"), ["--first-byte-timeout", "0.5"], folder: folder)
        #expect(stalled.status == 1 && stalled.stderr.contains("first-byte timeout"), "\(stalled.stderr)")
        #expect(Date().timeIntervalSince(started) < 5)
        let redirected = try Self.render(server.url("/redirect?n=1"), ["--max-redirects", "0"], folder: folder)
        #expect(redirected.status == 1 && redirected.stderr.contains("302"), "\(redirected.stderr)")
        #expect(try server.requestCount("/image.png") == 0)
        #expect(try Self.render(server.url("/redirect?n=1"), ["--max-redirects", "1"], folder: folder).status == 0)
        let usage = try Self.render(server.url("/image.png"), ["--max-redirects", "many"], folder: folder)
        #expect(usage.status == 2)
    }
}
