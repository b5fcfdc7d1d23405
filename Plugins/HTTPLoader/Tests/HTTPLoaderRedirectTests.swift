import Foundation
import PipelineHost
import PluginAPI
import Testing
import TestSupport

/// Redirects: followed within the limit, only to http and https.
@Suite("HTTP loader: redirects")
struct HTTPLoaderRedirectTests {
    @Test("a chain of 3 redirects is followed to the image")
    func chain() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        #expect(try await HTTPLoaderTesting.loaders().load(url: served.url("/redirect?n=3")) == served.image)
        #expect(try served.server.requestCount("/redirect") == 3)
        #expect(try served.server.requestCount("/image.png") == 1)
    }

    @Test("a redirect loop fails with IO \"too many redirects\" after the default limit of 10")
    func loop() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let error = await HTTPLoaderTesting.loadError(try HTTPLoaderTesting.loaders(), served.url("/redirect-loop"))
        #expect(error?.status == .io)
        #expect(HTTPLoaderTesting.message(of: error) == "too many redirects (more than 10)")
        // The first request plus 10 followed redirects.
        #expect(try served.server.requestCount("/redirect-loop") == 11)
    }

    @Test("max_redirects below the chain's length fails; at its length succeeds")
    func limit() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let loaders = try HTTPLoaderTesting.loaders()
        let error = await HTTPLoaderTesting.loadError(loaders, served.url("/redirect?n=3"), options: LoadOptions(maxRedirects: 2))
        #expect(HTTPLoaderTesting.message(of: error) == "too many redirects (more than 2)")
        #expect(try await loaders.load(url: served.url("/redirect?n=3"), options: LoadOptions(maxRedirects: 3)) == served.image)
    }

    @Test("a redirect to file:// is UNSUPPORTED and nothing of the file is delivered")
    func redirectToFile() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let raw = try RawHTTPLoader()
        let outcome = try raw.load(served.url("/redirect-file"))
        #expect(outcome.status == IP_STATUS_UNSUPPORTED)
        #expect(outcome.message.hasPrefix("redirect to a non-HTTP URL refused"), "\(outcome.message)")
        #expect(outcome.body.isEmpty)
        #expect(outcome.followsContract)
        // The same through the host.
        let error = await HTTPLoaderTesting.loadError(try HTTPLoaderTesting.loaders(), served.url("/redirect-file"))
        #expect(error?.status == .unsupported)
    }
}
