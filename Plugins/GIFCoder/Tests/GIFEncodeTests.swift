import Foundation
import PipelineHost
import Testing
import TestSupport

/// The encoder: exact palettes when the colours fit, median cut otherwise, animation with timing and loop count.
@Suite("GIF encoding")
struct GIFEncodeTests {
    /// 40x30 with 8 colours and a transparent border (alpha 0) — fits a palette exactly.
    static func fewColours() throws -> Image {
        var bytes: [UInt8] = []
        for y in 0..<30 {
            for x in 0..<40 {
                if x < 2 || y < 2 { bytes += [0, 0, 0, 0]; continue }
                let c = GIFTesting.letters[(x / 5 + y / 5) % 8].1
                bytes += [c.0, c.1, c.2, 255]
            }
        }
        return try Image(width: 40, height: 30, alphaMode: .straight, bytes: bytes)
    }

    /// 64x64 with 4096 distinct opaque colours — needs quantisation.
    static func manyColours() throws -> Image {
        var bytes: [UInt8] = []
        for y in 0..<64 {
            for x in 0..<64 { bytes += [UInt8(x * 4), UInt8(y * 4), UInt8((x + y) * 2), 255] }
        }
        return try Image(width: 64, height: 64, alphaMode: .none, bytes: bytes)
    }

    @Test("an image of at most 256 colours round-trips exactly, transparency included")
    func exactRoundTrip() throws {
        let coders = try GIFTesting.coders()
        let image = try Self.fewColours()
        let gif = try coders.encode(image, format: "gif")
        #expect(Array(gif.prefix(6)) == Array("GIF89a".utf8))
        let decoded = try coders.decode(data: gif)
        #expect(decoded.durationMilliseconds == 0)
        #expect(ReferenceTools.difference(decoded.bytes, image.bytes, width: 40) == nil)
        let info = try coders.probe(data: gif)
        #expect(info.frameCount == 1)
        #expect(info.loopCount == nil)
        #expect(info.hasAlpha)
    }

    @Test("more than 256 colours go through the median cut: mean error ≤ 4, max error ≤ 8 per channel (measured 3.5 and 6)")
    func quantised() throws {
        let coders = try GIFTesting.coders()
        let image = try Self.manyColours()
        let decoded = try coders.decode(data: try coders.encode(image, format: "gif"))
        let a = decoded.bytes, b = image.bytes
        var total = 0, worst = 0
        for i in 0..<a.count where i % 4 != 3 {
            let error = abs(Int(a[i]) - Int(b[i]))
            total += error
            worst = max(worst, error)
        }
        let mean = Double(total) / Double(a.count / 4 * 3)
        print("GIF median cut on 4096 colours: mean error \(mean), max \(worst)")
        #expect(mean <= 4)
        #expect(worst <= 8)
        #expect(decoded.pixel(x: 0, y: 0).a == 255)
    }

    @Test("RGBA16 and premultiplied input are converted to straight 8-bit colour")
    func inputFormats() throws {
        let coders = try GIFTesting.coders()
        // 2x1 RGBA16: opaque (0x8080, 0xFFFF, 0) and transparent.
        var wide: [UInt8] = []
        for v: UInt16 in [0x8080, 0xFFFF, 0, 0xFFFF, 0, 0, 0, 0] { wide += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        let image16 = try Image(width: 2, height: 1, pixelFormat: .rgba16, alphaMode: .straight, bytes: wide)
        let decoded16 = try coders.decode(data: try coders.encode(image16, format: "gif"))
        #expect(decoded16.pixel(x: 0, y: 0) == RGBA16Pixel(r: 128, g: 255, b: 0, a: 255))
        #expect(decoded16.pixel(x: 1, y: 0).a == 0)
        // Premultiplied (100, 50, 0, 200) is straight (128, 64, 0): alpha ≥ 128 stays opaque.
        let premultiplied = try Image(width: 1, height: 1, alphaMode: .premultiplied, bytes: [100, 50, 0, 200])
        let decoded = try coders.decode(data: try coders.encode(premultiplied, format: "gif"))
        #expect(decoded.pixel(x: 0, y: 0) == RGBA16Pixel(r: 128, g: 64, b: 0, a: 255))
    }

    @Test("an animation round-trips: composited frames, durations, loop count; ImageMagick and gifsicle agree")
    func animation() throws {
        let coders = try GIFTesting.coders()
        let frames = try coders.frames(data: GIFDisposalTests.animation()).readAll()
        let gif = try coders.encode(frames: frames, format: "gif", options: EncodeOptions(loopCount: 3))
        let again = try coders.frames(data: gif).readAll()
        #expect(again.map(GIFTesting.picture) == GIFDisposalTests.expected)
        #expect(again.map(\.durationMilliseconds) == GIFDisposalTests.durations)
        let info = try coders.probe(data: gif)
        #expect(info.frameCount == 6)
        #expect(info.loopCount == 3)

        guard ReferenceTools.hasImageMagick, ReferenceTools.hasGifsicle else { try Skip.because(ReferenceTools.missing, bootstrapProvides: true) }
        let (folder, path) = try GIFTesting.temporaryFile(gif, name: "ours.gif")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let theirs = try ReferenceTools.coalesce(path, in: folder, width: 6, height: 6)
        GIFReferenceTests.expectSameFrames(again.map(\.bytes), theirs, width: 6, "ours.gif in ImageMagick")
        let gifsicle = try ReferenceTools.run("gifsicle --info ours.gif", in: folder)
        #expect(gifsicle.contains("6 images"))
        #expect(gifsicle.contains("loop count 2"), "NETSCAPE stores repetitions: 3 plays = 2 repetitions\n\(gifsicle)")
        #expect(gifsicle.contains("delay 2.00s"))
    }

    @Test("loop count 0 is forever, 1 writes no loop extension (played once)")
    func loopCounts() throws {
        let coders = try GIFTesting.coders()
        let frames = try coders.frames(data: GIFDisposalTests.animation()).readAll()
        #expect(try coders.probe(data: try coders.encode(frames: frames, format: "gif", options: EncodeOptions(loopCount: 0))).loopCount == 0)
        #expect(try coders.probe(data: try coders.encode(frames: frames, format: "gif", options: EncodeOptions(loopCount: 1))).loopCount == nil)
    }

    @Test("progressive writes interlaced images that decode to the same pixels")
    func interlaced() throws {
        let coders = try GIFTesting.coders()
        let image = try Self.fewColours()
        let gif = try coders.encode(image, format: "gif", options: EncodeOptions(progressive: true))
        #expect(try coders.probe(data: gif).details.contains("interlaced"))
        #expect(ReferenceTools.difference(try coders.decode(data: gif).bytes, image.bytes, width: 40) == nil)
    }

    @Test("frames of different sizes are refused")
    func mismatchedFrames() throws {
        let coders = try GIFTesting.coders()
        let error = #expect(throws: PipelineError.self) {
            _ = try coders.encode(frames: [try Self.fewColours(), try Self.manyColours()], format: "gif")
        }
        #expect(error?.status == .invalidData)
    }
}
