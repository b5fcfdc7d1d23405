import Foundation
import PipelineHost
import Testing
import TestSupport

/// Shared setup of the HTTP loader tests: a host with only libHTTPLoader.so, a served folder, expected bodies.
enum HTTPLoaderTesting {
    static let loaderID = "org.imagepipe.loader.http/1"
    /// Size of the served image.png: not a multiple of libcurl's buffer, several chunks long.
    static let imageSize = 300_001

    /// The loaders of a host that loaded only libHTTPLoader.so (copied from plugins.d into a fresh folder).
    static func loaders(configuration: String = "") throws -> LoadersManager {
        try PluginSandbox.host(loading: ["libHTTPLoader.so"], loaderConfigurations: ["http": configuration]).loaders
    }

    /// A server over a fresh folder holding image.png (pseudo-random bytes); stop it and remove the folder after.
    static func server() throws -> Served {
        let folder = try TestPaths.temporaryDirectory("imagepipe-httploader")
        let image = bytes(count: imageSize)
        try Data(image).write(to: URL(fileURLWithPath: folder + "/image.png"))
        return Served(server: try TestHTTPServer(root: folder), folder: folder, image: image)
    }

    struct Served {
        let server: TestHTTPServer
        let folder: String
        /// The bytes of /image.png.
        let image: [UInt8]

        func url(_ path: String) -> String { server.url(path) }

        func close() {
            server.stop()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// The server's generated bodies: byte i is i % 251.
    static func pattern(count: Int) -> [UInt8] { (0..<count).map { UInt8($0 % 251) } }

    /// Deterministic pseudo-random bytes (an LCG), so a failure reproduces.
    static func bytes(count: Int, seed: UInt32 = 1) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    /// Loads `url` and returns the PipelineError it threw, or records an issue when it did not fail.
    static func loadError(_ loaders: LoadersManager, _ url: String, options: LoadOptions = LoadOptions(),
                          sourceLocation: SourceLocation = #_sourceLocation) async -> PipelineError? {
        do {
            let bytes = try await loaders.load(url: url, options: options)
            Issue.record("loading \(url) returned \(bytes.count) bytes instead of failing", sourceLocation: sourceLocation)
            return nil
        } catch let error as PipelineError {
            return error
        } catch {
            Issue.record("loading \(url) threw \(error), not a PipelineError", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// The message inside a loading failure of this loader ("" for other errors).
    static func message(of error: PipelineError?) -> String {
        if case .loadingFailed(_, let loader, _, let message) = error, loader == loaderID { return message }
        return ""
    }
}
