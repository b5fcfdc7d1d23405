import Foundation
import PipelineHost
import Testing

/// A failure in an isolated worker reaches the host as the `PipelineError` itself, encoded as JSON: every case
/// must come back equal, with its code and description (the worker's old mirror kept eight cases and turned the
/// rest into "plugin imagepipe-worker broke the ABI").
@Suite struct PipelineErrorCodingTests {
    static let everyCase: [PipelineError] = [
        .loadingFailed(url: "https://example.com/a.png", loader: "org.imagepipe.loader.http/1", status: .notFound, message: "HTTP 404"),
        .noLoader(url: "ftp://x/y", scheme: "ftp"),
        .noPlugins(searched: ["/usr/lib/imagepipe/1/plugins.d (missing)"]),
        .unknownFormat(bytesSeen: 12, hint: "empty input"),
        .decodingFailed(coder: "org.imagepipe.coder.png/1", status: .invalidData, message: "bad CRC"),
        .noEncoder(format: "bmp"),
        .encodingFailed(coder: "org.imagepipe.coder.webp/1", status: .limitExceeded, message: "too big"),
        .pluginMisbehaved(plugin: "org.example", message: "stride too small"),
        .cacheFailed(cache: "redis", status: .io, message: "connection refused"),
        .notInCache(url: "a"),
        .invalidArgument("bad size"),
        .outOfMemory(bytes: 1 << 30),
        .cancelled,
        .decoderCrashed(coder: "org.imagepipe.coder.svg/1", signal: 11),
        .timedOut(after: 2.5),
        .timedOutInProcess(after: 30),
        .memoryLimitExceeded(limit: 320 << 20),
        .pixelLimitExceeded(width: 70000, height: 70000, limit: 268_000_000),
        .memoryBudgetExceeded(bytes: 40 << 20, budget: 20 << 20),
    ]

    @Test(arguments: everyCase)
    func everyCaseSurvivesJSON(_ error: PipelineError) throws {
        let decoded = try JSONDecoder().decode(PipelineError.self, from: try JSONEncoder().encode(error))
        #expect(decoded == error)
        #expect(decoded.code == error.code && decoded.description == error.description)
    }
}
