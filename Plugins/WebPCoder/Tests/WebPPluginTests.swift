import Foundation
import PipelineHost
import Testing
import TestSupport

/// The plugin as the host sees it: loading, routing data, exports, thread safety.
@Suite("WebP plugin")
struct WebPPluginTests {
    @Test("loads alone; its descriptor routes RIFF....WEBP and nothing else")
    func loads() throws {
        let host = try PluginSandbox.host(loading: [WebPTesting.library])
        #expect(host.registry.records.count == 1)
        #expect(host.registry.records.first?.pluginID == "org.imagepipe.webp")
        let coder = try #require(host.coders.coders.first)
        let d = coder.descriptor
        #expect(d.id == WebPTesting.coderID)
        #expect(d.format == "webp")
        #expect(d.mimeTypes == ["image/webp"])
        #expect(d.extensions == ["webp"])
        #expect(d.capabilities == [.decode, .encode, .animated, .incremental, .fastThumbnail, .threadSafe])
        #expect(d.patterns.count == 1)
        #expect(d.patterns.first?.bytes == Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8))
        #expect(d.patterns.first?.mask == [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(d.patterns.first?.relevance == 100)
        let size: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        #expect(host.coders.coder(forData: Array("RIFF".utf8) + size + Array("WEBPVP8 ".utf8))?.descriptor.id == WebPTesting.coderID)
        #expect(host.coders.coder(forData: Array("RIFF".utf8) + size + Array("WAVEfmt ".utf8)) == nil)
    }

    @Test("decodes, reads frames and encodes concurrently (the coder claims IP_CODER_THREAD_SAFE)")
    func concurrent() async throws {
        guard WebPTesting.hasTools else { try Skip.because(WebPTesting.missing, bootstrapProvides: true) }
        let folder = try WebPTesting.workspace()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try WebPTesting.run("cwebp -quiet -q 70 photo.png -o photo.webp", in: folder)
        let coders = try WebPTesting.coders()
        let still = try TestFiles.read(folder + "/photo.webp")
        let animation = try WebPAnimationTests.makeAnimation(in: folder)
        let expectedStill = try coders.decode(data: still).bytes
        let expectedFrames = try coders.frames(data: animation).readAll().map(\.bytes)
        let source = try WebPEncodeTests.image("rose.png", in: folder, alpha: .none)
        let failures = try await ConcurrentChecks.failures(tasks: 12) { task in
            switch task % 3 {
            case 0: return try coders.decode(data: still).bytes == expectedStill ? nil : "task \(task): still differs"
            case 1: return try coders.frames(data: animation).readAll().map(\.bytes) == expectedFrames ? nil : "task \(task): frames differ"
            default:
                let webp = try coders.encode(source, format: "webp", options: EncodeOptions(lossless: true))
                return try coders.decode(data: webp).bytes == source.bytes ? nil : "task \(task): round trip differs"
            }
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("exports only imagepipe_plugin_entry")
    func exports() throws {
        guard let globals = try PluginExports.globalSymbols(of: WebPTesting.library) else { return }
        #expect(globals == ["imagepipe_plugin_entry"])
    }
}
