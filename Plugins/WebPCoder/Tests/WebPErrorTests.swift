import Foundation
import PipelineHost
import Testing
import TestSupport

/// Bad input gives an error status with a message, never a crash or a huge allocation.
@Suite("WebP errors and limits")
struct WebPErrorTests {
    @Test("truncated still and animated files are .truncated (decode, probe, frames)")
    func truncated() throws {
        guard WebPTesting.hasTools else { try Skip.because(WebPTesting.missing, bootstrapProvides: true) }
        let folder = try WebPTesting.workspace()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try WebPTesting.run("cwebp -quiet -q 70 photo.png -o lossy.webp && cwebp -quiet -lossless rose.png -o lossless.webp", in: folder)
        let coders = try WebPTesting.coders()
        var files = ["lossy.webp": try TestFiles.read(folder + "/lossy.webp"), "lossless.webp": try TestFiles.read(folder + "/lossless.webp")]
        files["anim.webp"] = try WebPAnimationTests.makeAnimation(in: folder)
        for (name, bytes) in files.sorted(by: { $0.key < $1.key }) {
            for length in stride(from: 12, to: bytes.count - 1, by: max(1, bytes.count / 60)) {
                let cut = Array(bytes.prefix(length))
                let status = failureStatus { _ = try coders.decode(data: cut) }
                #expect(status == .truncated, "\(name) cut at \(length) of \(bytes.count): \(String(describing: status))")
                if name == "anim.webp" {
                    #expect(failureStatus { _ = try coders.probe(data: cut) } == .truncated, "\(name) probe cut at \(length)")
                }
            }
        }
    }

    @Test("corrupt headers are .invalidData; damaged data never crashes (300 mutations per file)")
    func corrupt() throws {
        guard WebPTesting.hasTools else { try Skip.because(WebPTesting.missing, bootstrapProvides: true) }
        let folder = try WebPTesting.workspace()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try WebPTesting.run("cwebp -quiet -q 70 rose.png -o lossy.webp && cwebp -quiet -lossless rose.png -o lossless.webp && "
                            + "cwebp -quiet -q 70 alpha.png -o alpha.webp", in: folder)
        let coders = try WebPTesting.coders()
        let lossy = try TestFiles.read(folder + "/lossy.webp")
        // The VP8 key-frame start code 9d 01 2a follows the chunk header and 3 frame-tag bytes.
        var badStartCode = lossy
        badStartCode[23] ^= 0xFF
        #expect(failureStatus { _ = try coders.decode(data: badStartCode) } == .invalidData)
        // An unknown first chunk.
        var badChunk = lossy
        badChunk.replaceSubrange(12..<16, with: Array("XXXX".utf8))
        #expect(failureStatus { _ = try coders.decode(data: badChunk) } != nil)

        var files = [lossy, try TestFiles.read(folder + "/lossless.webp"), try TestFiles.read(folder + "/alpha.webp")]
        files.append(try WebPAnimationTests.makeAnimation(in: folder))
        var generator = SystemRandomNumberGenerator()
        let harness = try PluginHarness(library: WebPTesting.library)
        for base in files {
            for round in 0..<300 {
                var bytes = base
                for _ in 0..<(1 + round % 6) {
                    bytes[Int.random(in: 12..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
                _ = failureStatus { _ = try coders.probe(data: bytes) }
                _ = failureStatus { _ = try coders.decode(data: bytes) }
                // FrameReader frees its buffers twice when frames_open fails (host bug, reported): open directly
                // first, and read frames through the host only when that succeeds.
                if harness.openFrames(bytes) == .ok {
                    _ = failureStatus { _ = try coders.frames(data: bytes).readAll() }
                }
            }
        }
    }

    /// A valid animated WebP whose VP8X canvas claims `width` x `height`, with one 1x1 lossless frame.
    static func hugeCanvas(width: Int, height: Int) throws -> [UInt8] {
        let tiny = try Image(width: 1, height: 1, alphaMode: .none, bytes: [255, 0, 0, 255])
        let still = try WebPTesting.coders().encode(tiny, format: "webp", options: EncodeOptions(lossless: true))
        // The still file is RIFF + "VP8L" chunk; keep the chunk (header, payload, padding).
        let vp8l = Array(still[12...])
        func le24(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { le24(v) + [UInt8(v >> 24)] }
        func chunk(_ tag: String, _ payload: [UInt8]) -> [UInt8] {
            Array(tag.utf8) + le32(payload.count) + payload + (payload.count % 2 == 1 ? [0] : [])
        }
        let vp8x = chunk("VP8X", [0x02, 0, 0, 0] + le24(width - 1) + le24(height - 1))
        let anim = chunk("ANIM", [0, 0, 0, 0, 0, 0])
        let anmf = chunk("ANMF", [0, 0, 0, 0, 0, 0] + le24(0) + le24(0) + le24(100) + [0] + vp8l)
        let body = Array("WEBP".utf8) + vp8x + anim + anmf
        return Array("RIFF".utf8) + le32(body.count) + body
    }

    @Test("a canvas of 65535 x 65535 is .limitExceeded before anything is allocated")
    func hugeAnimationCanvas() throws {
        // libwebp itself refuses canvases of 2^32 pixels or more; 65535 x 65535 is just under.
        let webp = try Self.hugeCanvas(width: 65535, height: 65535)
        let coders = try WebPTesting.coders()
        let info = try coders.probe(data: webp)
        #expect((info.width, info.height, info.frameCount) == (65535, 65535, 1))
        #expect(failureStatus { _ = try coders.decode(data: webp) } == .limitExceeded)
        // frames_open refuses it; called directly, because the host's FrameReader frees its buffers twice when
        // frames_open fails (host bug, reported).
        #expect(try PluginHarness(library: WebPTesting.library).openFrames(webp) == .limitExceeded)
        // Within limits the same structure decodes (the frame at 0,0 over a transparent canvas).
        let small = try coders.decode(data: try Self.hugeCanvas(width: 3, height: 2))
        #expect(small.pixel(x: 0, y: 0) == RGBA16Pixel(r: 255, g: 0, b: 0, a: 255))
        #expect(small.pixel(x: 2, y: 1).a == 0)
    }

    @Test("a still image over the pixel limit is .limitExceeded, also with a thumbnail request")
    func stillLimits() throws {
        let coders = try WebPTesting.coders()
        let image = try Image(width: 300, height: 200, alphaMode: .none)
        let webp = try coders.encode(image, format: "webp")
        let limits = DecodeLimits(maxPixels: 300 * 199)
        #expect(failureStatus { _ = try coders.decode(data: webp, options: DecodeOptions(limits: limits)) } == .limitExceeded)
        #expect(failureStatus {
            _ = try coders.decode(data: webp, options: DecodeOptions(thumbnailSize: PixelSize(width: 30, height: 30), limits: limits))
        } == .limitExceeded)
        #expect(failureStatus { _ = try coders.decode(data: webp, options: DecodeOptions(limits: DecodeLimits(maxDimension: 299))) } == .limitExceeded)
        #expect(failureStatus { _ = try coders.decode(data: webp, options: DecodeOptions(limits: DecodeLimits(maxInputBytes: 10))) } == .limitExceeded)
    }
}
