import Foundation
import PipelineHost
import Testing
import TestSupport

/// Many loads at once over the one multi handle, and connection reuse.
@Suite("HTTP loader: concurrency")
struct HTTPLoaderConcurrencyTests {
    @Test("50 concurrent loads of different URLs all arrive intact")
    func fiftyConcurrent() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let loaders = try HTTPLoaderTesting.loaders()
        let intact = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<50 {
                let size = 10_000 + index * 997
                let url = served.url("/big?bytes=\(size)&i=\(index)")
                group.addTask { try await loaders.load(url: url) == HTTPLoaderTesting.pattern(count: size) }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(intact == 50)
        #expect(try served.server.requestCount("/big") == 50)
        // At most 6 connections per host by default, and they are reused.
        #expect(try served.server.connectionCount() <= 6)
    }

    @Test("sequential loads reuse their connection")
    func sequentialReuse() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let loaders = try HTTPLoaderTesting.loaders()
        for _ in 0..<20 {
            #expect(try await loaders.load(url: served.url("/image.png")) == served.image)
        }
        #expect(try served.server.requestCount("/image.png") == 20)
        // One connection when this test runs alone. The engine and its idle-connection cache (24) are shared by
        // the whole process, so when other suites burst at the same moment libcurl may close this test's idle
        // connection to make room, and the next load opens another. Without reuse it would be 20.
        let connections = try served.server.connectionCount()
        #expect(connections < 10, "20 sequential loads used \(connections) connections: idle connections are not being reused")
    }

    @Test("loads from two servers at once, with failures mixed in, each get their own outcome")
    func mixed() async throws {
        let first = try HTTPLoaderTesting.server()
        defer { first.close() }
        let second = try HTTPLoaderTesting.server()
        defer { second.close() }
        let loaders = try HTTPLoaderTesting.loaders()
        let results = await withTaskGroup(of: (Int, Result<[UInt8], Error>).self) { group in
            for index in 0..<30 {
                let served = index.isMultiple(of: 2) ? first : second
                let url = index % 3 == 0 ? served.url("/cut?bytes=1000&after=10") : served.url("/image.png")
                group.addTask { (index, await outcome { try await loaders.load(url: url) }) }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        for (index, result) in results {
            if index % 3 == 0 {
                #expect((try? result.get()) == nil, "\(index) should have been cut")
            } else {
                #expect((try? result.get()) == first.image, "\(index)")
            }
        }
    }
}

/// The result of an async throwing call.
private func outcome<T>(_ body: () async throws -> T) async -> Result<T, Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}
