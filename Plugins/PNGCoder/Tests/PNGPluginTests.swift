import Foundation
import PipelineHost
import Testing
import TestSupport

/// The plugin as the host sees it: loading, routing data, exports, thread safety.
@Suite("PNG plugin")
struct PNGPluginTests {
    @Test("loads alone and its coder is picked for PNG bytes")
    func loads() throws {
        let host = try PluginSandbox.host(loading: ["libPNGCoder.so"])
        #expect(host.registry.records.count == 1)
        #expect(host.registry.records.first?.pluginID == "org.imagepipe.png")
        let image = try PNGRoundTripTests.image(.color(bits: 8, alpha: false), alphaMode: .none)
        let png = try host.coders.encode(image, format: "png")
        #expect(host.coders.coder(forData: png)?.descriptor.id == PNGTesting.coderID)
        #expect(host.coders.coder(forData: Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 16)) == nil)
    }

    @Test("probe reports a still, single-page image whose loop count the file does not state")
    func probe() throws {
        let coders = try PNGTesting.coders()
        let png = try coders.encode(try PNGRoundTripTests.image(.color(bits: 16, alpha: true), alphaMode: .straight),
                                    format: "png")
        let info = try coders.probe(data: png)
        #expect(info.format == "png")
        #expect(info.frameCount == 1)
        #expect(info.pageCount == 1)
        #expect(info.loopCount == nil)
        #expect(info.bitDepth == 16)
        #expect(info.hasAlpha)
        #expect(info.details == "16-bit RGBA")
    }

    @Test("a thumbnail request is scaled by the host (the coder does not claim IP_CODER_SCALES)")
    func thumbnail() throws {
        let coders = try PNGTesting.coders()
        let png = try coders.encode(try PNGRoundTripTests.image(.color(bits: 8, alpha: false, width: 80, height: 40),
                                                                alphaMode: .none), format: "png")
        let image = try coders.decode(data: png, options: DecodeOptions(thumbnailSize: PixelSize(width: 20, height: 20)))
        #expect((image.width, image.height) == (20, 10))
    }

    @Test("decodes concurrently (the coder claims IP_CODER_THREAD_SAFE)")
    func concurrent() async throws {
        let coders = try PNGTesting.coders()
        let pattern = Pattern.color(bits: 8, alpha: true, width: 97, height: 61)
        let png = try coders.encode(try PNGRoundTripTests.image(pattern, alphaMode: .straight), format: "png",
                                    options: EncodeOptions(progressive: true))
        let failures = try await ConcurrentChecks.failures(tasks: 16) { _ in
            PNGTesting.firstMismatch(try coders.decode(data: png), pattern)
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("exports only imagepipe_plugin_entry")
    func exports() throws {
        guard let globals = try PluginExports.globalSymbols(of: "libPNGCoder.so") else { return }
        #expect(globals == ["imagepipe_plugin_entry"])
    }
}
