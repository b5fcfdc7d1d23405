import Foundation
import PipelineHost
import Testing
import TestSupport

/// The plugin as the host sees it: loading, routing data, exports, thread safety.
@Suite("JPEG plugin")
struct JPEGPluginTests {
    @Test("loads alone; its descriptor has the documented routing data")
    func descriptor() throws {
        let host = try PluginSandbox.host(loading: ["libJPEGCoder.so"])
        #expect(host.registry.records.count == 1)
        #expect(host.registry.records.first?.pluginID == "org.imagepipe.jpeg")
        let coder = try #require(host.coders.coders.first)
        let d = coder.descriptor
        #expect(d.id == JPEGTesting.coderID)
        #expect(d.format == "jpeg")
        #expect(d.mimeTypes == ["image/jpeg"])
        #expect(d.extensions == ["jpg", "jpeg", "jpe", "jfif"])
        #expect(d.capabilities == [.decode, .encode, .fastThumbnail, .threadSafe, .incremental])
        #expect(!d.capabilities.contains(.scales), "the host finishes the resampling")
        #expect(host.coders.coder(forData: [0xFF, 0xD8, 0xFF, 0xE0, 0, 16])?.descriptor.id == JPEGTesting.coderID)
        #expect(host.coders.coder(forData: [0xFF, 0xD8, 0x00, 0xE0]) == nil)
    }

    @Test("decodes concurrently (the coder claims IP_CODER_THREAD_SAFE)")
    func concurrent() async throws {
        let coders = try JPEGTesting.coders()
        let scene = Scene.make(width: 211, height: 97)
        let jpeg = try coders.encode(try scene.image(), format: "jpeg", options: EncodeOptions(progressive: true))
        let expected = try JPEGTesting.decodeRGB(jpeg, coders: coders)
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<16 {
                group.addTask {
                    if i % 2 == 0 { return Difference(try JPEGTesting.decodeRGB(jpeg, coders: coders), expected).maximum }
                    _ = try coders.encode(try scene.image(), format: "jpeg")
                    return 0
                }
            }
            return try await group.reduce(0) { max($0, $1) }
        }
        #expect(mismatches == 0)
    }

    @Test("exports only imagepipe_plugin_entry")
    func exports() throws {
        guard let globals = try PluginExports.globalSymbols(of: "libJPEGCoder.so") else { return }
        #expect(globals == ["imagepipe_plugin_entry"])
    }
}
