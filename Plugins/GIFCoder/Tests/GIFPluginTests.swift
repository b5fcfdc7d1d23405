import Foundation
import PipelineHost
import Testing
import TestSupport

/// The plugin as the host sees it: loading, routing data, exports, thread safety.
@Suite("GIF plugin")
struct GIFPluginTests {
    @Test("loads alone; its descriptor routes GIF87a and GIF89a")
    func loads() throws {
        let host = try PluginSandbox.host(loading: ["libGIFCoder.so"])
        #expect(host.registry.records.count == 1)
        #expect(host.registry.records.first?.pluginID == "org.imagepipe.gif")
        let coder = try #require(host.coders.coders.first)
        let d = coder.descriptor
        #expect(d.id == GIFTesting.coderID)
        #expect(d.format == "gif")
        #expect(d.mimeTypes == ["image/gif"])
        #expect(d.extensions == ["gif"])
        #expect(d.capabilities == [.decode, .encode, .animated, .threadSafe])
        let tail = [UInt8](repeating: 0, count: 16)
        #expect(host.coders.coder(forData: Array("GIF87a".utf8) + tail)?.descriptor.id == GIFTesting.coderID)
        #expect(host.coders.coder(forData: Array("GIF89a".utf8) + tail)?.descriptor.id == GIFTesting.coderID)
        #expect(host.coders.coder(forData: Array("GIF90a".utf8) + tail) == nil)
    }

    @Test("a GIF87a file decodes")
    func gif87() throws {
        var gif = GIFWriter(width: 2, height: 2, globalPalette: GIFTesting.palette, version: "GIF87a")
        gif.image(width: 2, height: 2, indices: GIFTesting.indices(["RG", "BW"]))
        gif.trailer()
        let coders = try GIFTesting.coders()
        #expect(GIFTesting.picture(try coders.decode(data: gif.bytes)) == ["RG", "BW"])
        #expect(try coders.probe(data: gif.bytes).details.hasPrefix("GIF87a, 1 frame"))
    }

    @Test("a thumbnail request is scaled by the host (the coder does not claim IP_CODER_SCALES)")
    func thumbnail() throws {
        let coders = try GIFTesting.coders()
        let gif = try coders.encode(try GIFEncodeTests.fewColours(), format: "gif")
        let image = try coders.decode(data: gif, options: DecodeOptions(thumbnailSize: PixelSize(width: 20, height: 20)))
        #expect((image.width, image.height) == (20, 15))
    }

    @Test("decodes, reads frames and encodes concurrently (the coder claims IP_CODER_THREAD_SAFE)")
    func concurrent() async throws {
        let coders = try GIFTesting.coders()
        let animation = GIFDisposalTests.animation()
        let still = try GIFEncodeTests.manyColours()
        let failures = try await ConcurrentChecks.failures(tasks: 16) { task in
            if task % 2 == 0 {
                let frames = try coders.frames(data: animation).readAll().map(GIFTesting.picture)
                return frames == GIFDisposalTests.expected ? nil : "task \(task): frames differ"
            }
            let gif = try coders.encode(still, format: "gif")
            return try coders.decode(data: gif).width == 64 ? nil : "task \(task): bad round trip"
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("exports only imagepipe_plugin_entry")
    func exports() throws {
        guard let globals = try PluginExports.globalSymbols(of: "libGIFCoder.so") else { return }
        #expect(globals == ["imagepipe_plugin_entry"])
    }
}
