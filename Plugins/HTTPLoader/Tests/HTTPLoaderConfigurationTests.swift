import Foundation
import PipelineHost
import Synchronization
import Testing
import TestSupport

/// ABI 1.1 on the HTTP loader: its configuration comes from the host (never from the environment), it reports the
/// final response's header lines, and it asks the host before following each redirect.
@Suite("HTTP loader: configuration, headers, vetted redirects")
struct HTTPLoaderConfigurationTests {
    @Test("max-connections from the host bounds the connections to one origin")
    func maxConnections() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let loaders = try HTTPLoaderTesting.loaders(configuration: "max-connections=2")
        let intact = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<12 {
                let url = served.url("/slow?bytes=4000&delay=20&chunk=1000&i=\(index)")
                group.addTask { try await loaders.load(url: url) == HTTPLoaderTesting.pattern(count: 4000) }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(intact == 12)
        // Twelve loads that each take about 80 ms, all at once: with the default limit (6) they would open six.
        #expect(try served.server.connectionCount() <= 2)
    }

    @Test("an unknown key or a bad value fails the loader's open, naming it; the environment is not read")
    func refusedConfiguration() async throws {
        for (configuration, named) in [("max-conections=4", "'max-conections'"), ("max-connections=0", "max-connections=0")] {
            let loaders = try HTTPLoaderTesting.loaders(configuration: configuration)
            #expect(throws: PipelineError.self) { try loaders.openConfigured() }
            do {
                try loaders.openConfigured()
            } catch {
                #expect("\(error)".contains(named), "\(error)")
            }
        }
        // The old variable is the host's business now (the CLI maps it); the plugin itself ignores it.
        let source = try String(contentsOfFile: TestPaths.repositoryRoot + "/Plugins/HTTPLoader/Sources/HTTPLoader/TransferEngine.swift",
                                encoding: .utf8)
        #expect(!source.contains("getenv"))
    }

    @Test("the final response's validators reach the host; a redirect's headers do not")
    func headers() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let seen = Mutex<LoadResponse?>(nil)
        let hooks = LoadHooks(validateResponse: { response in seen.withLock { $0 = response } })
        let body = try await HTTPLoaderTesting.loaders().load(url: served.url("/redirect?n=1"), options: LoadOptions(), hooks: hooks)
        #expect(body == served.image)
        let response = try #require(seen.withLock { $0 })
        #expect(response.statusCode == 200)
        #expect(response.header("etag")?.hasPrefix("\"") == true, "\(response.headers)")
        #expect(response.header("Last-Modified") != nil)
        #expect(response.header("Location") == nil, "the redirect's own headers were reported: \(response.headers)")
    }

    @Test("each hop is put to the host before it is followed; a refused hop connects nowhere and fails as refused")
    func vettedRedirects() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let other = try HTTPLoaderTesting.server()
        defer { other.close() }
        let loaders = try HTTPLoaderTesting.loaders()
        let asked = Mutex<[String]>([])
        let allowed = LoadHooks(approveRedirect: { status, target in
            asked.withLock { $0.append("\(status) \(target)") }
            return true
        })
        #expect(try await loaders.load(url: served.url("/redirect?n=2"), options: LoadOptions(), hooks: allowed) == served.image)
        #expect(asked.withLock { $0 } == ["302 \(served.url("/redirect?n=1"))", "302 \(served.url("/image.png"))"],
                "relative Locations are resolved against the URL that sent them")

        let target = other.url("/image.png")
        let escaping = served.url("/redirect-to?url=" + (target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target))
        let refuse = LoadHooks(approveRedirect: { _, to in !to.hasPrefix(other.url("/")) })
        do {
            _ = try await loaders.load(url: escaping, options: LoadOptions(), hooks: refuse)
            Issue.record("a refused redirect was followed")
        } catch let PipelineError.loadingFailed(_, _, status, _) {
            #expect(status == .refused)
        }
        #expect(try other.server.requestCount("/image.png") == 0, "the refused target was contacted")
        #expect(try other.server.connectionCount() == 0)
    }
}
