import Foundation
import PipelineHost
import PluginAPI
import Testing
import TestSupport

/// What response() reports — status code, expected size, content type, effective URL — and the callback order.
@Suite("HTTP loader: callbacks")
struct HTTPLoaderContractTests {
    @Test("response() carries the status, Content-Length, Content-Type and URL before the first data()")
    func plainResponse() throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let outcome = try RawHTTPLoader().load(served.url("/image.png"))
        #expect(outcome.status == IP_STATUS_OK)
        #expect(outcome.followsContract)
        let response = try #require(outcome.response)
        #expect(response.status == 200)
        #expect(response.expected == Int64(HTTPLoaderTesting.imageSize))
        #expect(response.contentType == "image/png")
        #expect(response.url == served.url("/image.png"))
        #expect(outcome.body == served.image)
    }

    @Test("404 and 500 reach response() with their code; the transfer itself succeeds", arguments: [404, 500])
    func errorStatus(code: Int32) throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let outcome = try RawHTTPLoader().load(served.url("/status/\(code)"))
        #expect(outcome.status == IP_STATUS_OK)
        #expect(outcome.response?.status == code)
        #expect(outcome.response?.contentType == "text/plain")
        #expect(outcome.body == Array("status \(code)".utf8))
    }

    @Test("a body-less 204 still gets its response() before complete()")
    func noContent() throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let outcome = try RawHTTPLoader().load(served.url("/status/204"))
        #expect(outcome.status == IP_STATUS_OK)
        #expect(outcome.response?.status == 204)
        #expect(outcome.events.count == 2)
        #expect(outcome.followsContract)
    }

    @Test("after redirects, response() reports the final status and URL, once")
    func redirected() throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let outcome = try RawHTTPLoader().load(served.url("/redirect?n=2"))
        #expect(outcome.followsContract)
        #expect(outcome.events.filter { if case .response = $0 { true } else { false } }.count == 1)
        #expect(outcome.response?.status == 200)
        #expect(outcome.response?.url == served.url("/image.png"))
    }

    @Test("the size is unknown (-1) for chunked and for compressed bodies, whose Content-Length counts encoded bytes")
    func unknownSizes() throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let raw = try RawHTTPLoader()
        for path in ["/chunked", "/gzip", "/big-no-length?bytes=10"] {
            let outcome = try raw.load(served.url(path))
            #expect(outcome.status == IP_STATUS_OK, "\(path): \(outcome.message)")
            #expect(outcome.response?.expected == -1, "\(path)")
        }
    }

    @Test("the Content-Type is passed on as the server sent it, even when it is wrong")
    func wrongType() throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let outcome = try RawHTTPLoader().load(served.url("/wrong-type"))
        #expect(outcome.response?.contentType == "text/html")
        #expect(outcome.body == served.image)
    }

    @Test("failures complete without response() when the headers never arrived")
    func failureWithoutResponse() throws {
        let served = try HTTPLoaderTesting.server()
        let url = served.url("/image.png")
        served.close()
        let outcome = try RawHTTPLoader().load(url)
        #expect(outcome.status == IP_STATUS_IO)
        #expect(outcome.events.count == 1)
    }
}
