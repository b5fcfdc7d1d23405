import Foundation
import PipelineHost
import Synchronization
import Testing
import TestSupport

/// The data: loader (the loader template), through a host that loaded only libDataLoader.so.
@Suite("data: URL loader")
struct DataLoaderTests {
    static func loaders(configuration: String = "") throws -> LoadersManager {
        try PluginSandbox.host(loading: ["libDataLoader.so"], loaderConfigurations: ["data": configuration]).loaders
    }

    static func response(of url: String, loaders: LoadersManager) async throws -> (LoadResponse?, [UInt8]) {
        let seen = Mutex<LoadResponse?>(nil)
        let bytes = try await loaders.load(url: url, options: LoadOptions(), hooks: LoadHooks(validateResponse: { r in seen.withLock { $0 = r } }))
        return (seen.withLock { $0 }, bytes)
    }

    @Test("base64 and percent-encoded data decode to their bytes, with the media type as the content type")
    func decodes() async throws {
        let loaders = try Self.loaders()
        let bytes: [UInt8] = (0..<300).map { UInt8(($0 * 37) % 256) }
        let base64 = Data(bytes).base64EncodedString()
        let (response, loaded) = try await Self.response(of: "data:image/png;base64," + base64, loaders: loaders)
        #expect(loaded == bytes)
        #expect(response?.contentType == "image/png" && response?.expectedSize == 300 && response?.statusCode == 0)
        // Wrapped (white space) and URL-safe base64, unpadded.
        let wrapped = String(base64.enumerated().map { $0.offset > 0 && $0.offset % 76 == 0 ? "\n\($0.element)" : "\($0.element)" }.joined())
        #expect(try await loaders.load(url: "data:;base64," + wrapped) == bytes)
        let urlSafe = base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(try await loaders.load(url: "DATA:application/octet-stream;base64," + urlSafe) == bytes)
        let (plain, text) = try await Self.response(of: "data:,A%20brief%20note%2C%0A", loaders: loaders)
        #expect(text == Array("A brief note,\n".utf8))
        #expect(plain?.contentType == "text/plain;charset=US-ASCII")
        #expect(try await loaders.load(url: "data:,") == [])
    }

    @Test("malformed data: URLs fail with one line; over the byte limit is a limit")
    func refusals() async throws {
        let loaders = try Self.loaders()
        for url in ["data:image/png;base64", "data:;base64,AAA*", "data:;base64,QQ==QQ", "data:,%4", "data:,%zz"] {
            do {
                _ = try await loaders.load(url: url)
                Issue.record("\(url) loaded")
            } catch let error as PipelineError {
                #expect(!"\(error)".contains("\n"), "\(error)")
            }
        }
        do {
            _ = try await loaders.load(url: "data:;base64," + Data(count: 3000).base64EncodedString(), options: LoadOptions(maxBytes: 1000))
            Issue.record("an over-limit data: URL loaded")
        } catch let PipelineError.loadingFailed(_, _, status, _) {
            #expect(status == .limitExceeded)
        }
    }

    @Test("an instance's max-url-bytes bounds the URL; an unknown key fails the open by name")
    func configuration() async throws {
        let bounded = try Self.loaders(configuration: "max-url-bytes=64")
        #expect(try await bounded.load(url: "data:,short") == Array("short".utf8))
        do {
            _ = try await bounded.load(url: "data:," + String(repeating: "x", count: 100))
            Issue.record("a URL past max-url-bytes loaded")
        } catch let PipelineError.loadingFailed(_, _, status, message) {
            #expect(status == .limitExceeded && message.contains("max-url-bytes"), "\(message)")
        }
        let misspelt = try Self.loaders(configuration: "max-url-byte=64")
        #expect(throws: PipelineError.self) { try misspelt.openConfigured() }
    }
}
