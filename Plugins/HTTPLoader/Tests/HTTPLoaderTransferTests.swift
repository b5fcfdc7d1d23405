import Foundation
import PipelineHost
import Synchronization
import Testing
import TestSupport

/// Successful transfers through the host API: plain, chunked, compressed, slow, error statuses, odd labels.
@Suite("HTTP loader: transfers")
struct HTTPLoaderTransferTests {
    @Test("loads alone and describes itself as the thread-safe, size-knowing, range-honouring loader of http and https URLs")
    func descriptor() throws {
        let host = try PluginSandbox.host(loading: ["libHTTPLoader.so"])
        #expect(host.registry.records.map(\.pluginID) == ["org.imagepipe.http"])
        let descriptors = host.loaders.loaders.map(\.descriptor)
        #expect(descriptors.map(\.id) == [HTTPLoaderTesting.loaderID])
        #expect(descriptors.first?.schemes == ["http", "https"])
        #expect(descriptors.first?.capabilityNames == ["thread-safe", "knows-size", "ranges"])
        #expect(host.loaders.canLoad(url: "https://example.com/a.png"))
        #expect(host.loaders.canLoad(url: "HTTP://example.com/a.png"))
        #expect(!host.loaders.canLoad(url: "/local/file.png"))
    }

    @Test("an image with Content-Length arrives intact")
    func plainImage() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let bytes = try await HTTPLoaderTesting.loaders().load(url: served.url("/image.png"))
        #expect(bytes.count == served.image.count)
        #expect(bytes == served.image)
    }

    @Test("a chunked body (no Content-Length) arrives intact")
    func chunked() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        #expect(try await HTTPLoaderTesting.loaders().load(url: served.url("/chunked")) == served.image)
    }

    @Test("a gzip-encoded body is decoded")
    func gzip() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        #expect(try await HTTPLoaderTesting.loaders().load(url: served.url("/gzip")) == served.image)
    }

    @Test("a body that ends with the connection (no length, no chunks) arrives intact")
    func closeDelimited() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let bytes = try await HTTPLoaderTesting.loaders().load(url: served.url("/big-no-length?bytes=1000000"))
        #expect(bytes == HTTPLoaderTesting.pattern(count: 1_000_000))
    }

    @Test("a slow drip of 40 small chunks completes")
    func slowDrip() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let bytes = try await HTTPLoaderTesting.loaders().load(url: served.url("/slow?bytes=4000&delay=10&chunk=100"))
        #expect(bytes == HTTPLoaderTesting.pattern(count: 4000))
    }

    @Test("404 and 500 complete at the transport level: the host's default validator rejects them, another accepts",
          arguments: [(404, PluginStatus.notFound), (500, PluginStatus.io)])
    func errorStatus(code: Int, hostStatus: PluginStatus) async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let loaders = try HTTPLoaderTesting.loaders()
        let url = served.url("/status/\(code)")
        let error = await HTTPLoaderTesting.loadError(loaders, url)
        #expect(error?.status == hostStatus)
        #expect(HTTPLoaderTesting.message(of: error) == "HTTP status \(code)")
        let seen = Mutex<LoadResponse?>(nil)
        let hooks = LoadHooks(validateResponse: { response in seen.withLock { $0 = response } })
        let bytes = try await loaders.load(url: url, options: LoadOptions(), hooks: hooks)
        #expect(bytes == Array("status \(code)".utf8))
        let response = try #require(seen.withLock { $0 })
        #expect(response.statusCode == code)
        #expect(response.contentType == "text/plain")
        #expect(response.effectiveURL == url)
        #expect(response.expectedSize == bytes.count)
    }

    @Test("progress: the host's counts of data() bytes reach the Content-Length from response()")
    func progress() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let reports = Mutex<[(Int, Int?)]>([])
        let hooks = LoadHooks(progress: { received, expected in reports.withLock { $0.append((received, expected)) } })
        let bytes = try await HTTPLoaderTesting.loaders().load(url: served.url("/image.png"), options: LoadOptions(), hooks: hooks)
        let seen = reports.withLock { $0 }
        #expect(bytes == served.image)
        #expect(seen.count > 1, "a 300 kB body arrives in several chunks")
        #expect(seen.allSatisfy { $0.1 == HTTPLoaderTesting.imageSize })
        #expect(seen.map(\.0) == seen.map(\.0).sorted())
        #expect(seen.last?.0 == HTTPLoaderTesting.imageSize)
    }

    @Test("a 204 with no body loads as zero bytes")
    func noContent() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        #expect(try await HTTPLoaderTesting.loaders().load(url: served.url("/status/204")) == [])
    }

    @Test("image bytes labelled text/html are delivered as they are")
    func wrongType() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        #expect(try await HTTPLoaderTesting.loaders().load(url: served.url("/wrong-type")) == served.image)
    }

    @Test("custom request headers reach the server; the User-Agent names imagepipe unless overridden")
    func customHeaders() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let loaders = try HTTPLoaderTesting.loaders()
        let options = LoadOptions(headers: ["X-Imagepipe-Test: one two", "Authorization: Bearer abc"])
        let echoed = try served.server.echoedHeaders(try await loaders.load(url: served.url("/echo-headers"), options: options))
        #expect(echoed["x-imagepipe-test"] == "one two")
        #expect(echoed["authorization"] == "Bearer abc")
        #expect(echoed["user-agent"]?.hasPrefix("imagepipe/1.0 libcurl/") == true)
        #expect(echoed["accept-encoding"]?.contains("gzip") == true)
        let agent = try served.server.echoedHeaders(
            try await loaders.load(url: served.url("/echo-headers"), options: LoadOptions(headers: ["User-Agent: mine/2"])))
        #expect(agent["user-agent"] == "mine/2")
    }
}
