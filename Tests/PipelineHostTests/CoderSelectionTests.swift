import Foundation
import PipelineHost
import Testing
import TestSupport

/// Sniffing picks coders by magic bytes, then relevance, then priority, then confirm-by-sniff.
@Suite struct CoderSelectionTests {
    private func magic(_ text: String) -> String { FixturePlugins.stringDefine("FIXTURE_MAGIC", text) }
    private func id(_ text: String) -> String { FixturePlugins.stringDefine("FIXTURE_ID", text) }

    @Test func higherRelevanceWinsThenPriority() throws {
        let folder = try TestPaths.temporaryDirectory()
        // Three coders match "ABCD...": a short pattern of low relevance with a high priority, and two of equal
        // relevance that differ only by priority.
        try FixturePlugins.build("1.so", in: folder, defines: [id("org.t.low"), magic("AB"), "FIXTURE_RELEVANCE=10", "FIXTURE_PRIORITY=1000"])
        try FixturePlugins.build("2.so", in: folder, defines: [id("org.t.mid"), magic("ABCD"), "FIXTURE_RELEVANCE=90", "FIXTURE_PRIORITY=100"])
        try FixturePlugins.build("3.so", in: folder, defines: [id("org.t.high"), magic("ABCD"), "FIXTURE_RELEVANCE=90", "FIXTURE_PRIORITY=200"])
        let host = PluginHost(searchPath: PluginSearchPath(directories: [folder]))
        #expect(host.coders.coder(forData: Array("ABCDxyz".utf8))?.descriptor.id == "org.t.high.coder/1")
        #expect(host.coders.coder(forData: Array("ABzz".utf8))?.descriptor.id == "org.t.low.coder/1")
        #expect(host.coders.coder(forData: Array("zzzz".utf8)) == nil)
    }

    @Test func confirmBySniffSkipsACandidateThatSaysNo() throws {
        let folder = try TestPaths.temporaryDirectory()
        try FixturePlugins.build("1.so", in: folder, defines: [id("org.t.refuses"), magic("SAME"), "FIXTURE_RELEVANCE=100",
                                                               "FIXTURE_PATTERN_FLAGS=IP_MAGIC_CONFIRM_WITH_SNIFF",
                                                               "FIXTURE_SNIFF_STATUS=IP_STATUS_UNSUPPORTED"])
        try FixturePlugins.build("2.so", in: folder, defines: [id("org.t.accepts"), magic("SAME"), "FIXTURE_RELEVANCE=50"])
        let host = PluginHost(searchPath: PluginSearchPath(directories: [folder]))
        #expect(host.coders.coder(forData: Array("SAME".utf8))?.descriptor.id == "org.t.accepts.coder/1")
    }

    @Test func unknownBytesGiveAClearError() throws {
        let folder = try TestPaths.temporaryDirectory()
        try FixturePlugins.build("1.so", in: folder)
        let host = PluginHost(searchPath: PluginSearchPath(directories: [folder]))
        #expect(throws: PipelineError.unknownFormat(bytesSeen: 5, hint: "")) { try host.coders.decode(data: Array("hello".utf8)) }
        #expect(throws: PipelineError.unknownFormat(bytesSeen: 0, hint: "empty input")) { try host.coders.decode(data: []) }
    }

    @Test func pngIsChosenByMagicBytesWhateverTheFileIsCalled() throws {
        let host = try PluginSandbox.host(loading: ["libPNGCoder.so", "libTemplateCoder.so", "libFileLoader.so"])
        let image = try Image(width: 3, height: 2, bytes: [UInt8](repeating: 200, count: 24))
        let png = try host.coders.encode(image, format: "png")
        let folder = try TestPaths.temporaryDirectory()
        let misnamed = folder + "/really-a-png.qoi"
        try Data(png).write(to: URL(fileURLWithPath: misnamed))
        let manager = ImageManager(host: host)
        let info = try awaitResult { try await manager.info(for: misnamed) }
        #expect(info.coderID == "org.imagepipe.coder.png/1")
        #expect(info.width == 3 && info.height == 2)
    }
}

/// Runs an async throwing closure from a synchronous test.
func awaitResult<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let semaphore = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
        semaphore.signal()
    }
    semaphore.wait()
    return try box.result!.get()
}

/// `@unchecked Sendable`: written once before the semaphore is signalled, read after it.
final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, Error>?
}

/// Regression: FrameReader freed its buffers twice when frames_open failed (init released, then deinit again).
@Suite struct FrameReaderTests {
    @Test func aFailingFramesOpenIsAnErrorNotACrash() throws {
        let folder = try TestPaths.temporaryDirectory()
        try FixturePlugins.build("1.so", in: folder, defines: ["FIXTURE_ANIMATED_OPEN_FAILS"])
        let host = PluginHost(searchPath: PluginSearchPath(directories: [folder]))
        for _ in 0..<3 {
            #expect(throws: PipelineError.decodingFailed(coder: "org.imagepipe.test.fixture.coder/1", status: .invalidData,
                                                         message: "no frames here")) { _ = try host.coders.frames(data: Array("FIXT".utf8)) }
        }
    }
}
