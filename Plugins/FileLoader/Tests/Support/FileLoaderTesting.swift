import Foundation
import PipelineHost
import Testing
import TestSupport

/// Shared setup of the file loader tests: a host with only libFileLoader.so, fixture files, file URLs.
enum FileLoaderTesting {
    static let loaderID = "org.imagepipe.loader.file/1"

    /// The loaders of a host that loaded only libFileLoader.so (copied from plugins.d into a fresh folder).
    static func loaders() throws -> LoadersManager {
        try PluginSandbox.host(loading: ["libFileLoader.so"]).loaders
    }

    /// Loads `url` and returns the PipelineError it threw, or records an issue when it did not fail.
    static func loadError(_ url: String, maxBytes: Int? = 512 << 20,
                          sourceLocation: SourceLocation = #_sourceLocation) async throws -> PipelineError? {
        let loaders = try loaders()
        do {
            let bytes = try await loaders.load(url: url, options: LoadOptions(maxBytes: maxBytes))
            Issue.record("loading \(url) returned \(bytes.count) bytes instead of failing", sourceLocation: sourceLocation)
            return nil
        } catch let error as PipelineError {
            return error
        }
    }

    /// The message inside a loading failure ("" for other errors).
    static func message(of error: PipelineError?) -> String {
        if case .loadingFailed(_, let loader, _, let message) = error, loader == loaderID { return message }
        return ""
    }

    /// A fresh private folder, removed by the caller.
    static func folder() throws -> String { try TestPaths.temporaryDirectory("imagepipe-fileloader") }

    /// Deterministic pseudo-random bytes (an LCG), so a failure reproduces.
    static func bytes(count: Int, seed: UInt32 = 1) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    /// `file://` + the path with every byte outside RFC 3986's unreserved set (and "/") percent-encoded.
    static func fileURL(_ path: String, host: String = "") -> String {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/".utf8)
        let encoded = path.utf8.map { byte in
            unreserved.contains(byte) ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }.joined()
        return "file://" + host + encoded
    }

    /// Paths that file descriptors of this process point at (from /proc/self/fd).
    static func openPaths() -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
    }
}
