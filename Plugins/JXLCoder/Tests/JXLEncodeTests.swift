import Foundation
import PipelineHost
import Testing
import TestSupport

/// Encoding: what the plugin writes decodes back (through itself and through djxl) as it should.
@Suite("JPEG XL encoding")
struct JXLEncodeTests {
    @Test("lossless round-trips exactly, 8-bit and 16-bit, with alpha; djxl reads the file")
    func losslessRoundTrip() throws {
        let coders = try JXLTesting.coders()
        for sixteen in [false, true] {
            let source = try JXLTesting.picture(width: 67, height: 41, sixteen: sixteen)
            let encoded = try coders.encode(source, format: "jxl", options: EncodeOptions(lossless: true))
            let info = try coders.probe(data: encoded)
            #expect(info.bitDepth == (sixteen ? 16 : 8) && info.hasAlpha && info.details.contains("original colour profile"))
            let decoded = try coders.decode(data: encoded, options: DecodeOptions(highBitDepth: true, colorOutput: .keep))
            #expect(decoded.pixelFormat == source.pixelFormat)
            #expect(decoded.bytes == source.bytes ? true : false, "lossless \(sixteen ? 16 : 8)-bit did not round-trip")
        }
        let eight = try coders.encode(try JXLTesting.picture(width: 20, height: 10), format: "jxl", options: EncodeOptions(lossless: true))
        let reference = try JXLTesting.djxl(eight)
        #expect(JXLTesting.maxDifference(try coders.decode(data: eight, options: DecodeOptions(colorOutput: .keep)), reference) == 0)
    }

    @Test("lossy follows the quality: higher is larger and closer; an opaque image is written without alpha")
    func lossyQuality() throws {
        let coders = try JXLTesting.coders()
        let source = try JXLTesting.picture(width: 256, height: 192, alpha: false)
        var sizes: [Int] = []
        var errors: [Double] = []
        for quality in [40, 75, 95] {
            let encoded = try coders.encode(source, format: "jxl", options: EncodeOptions(quality: quality))
            let decoded = try coders.decode(data: encoded)
            #expect(!(try coders.probe(data: encoded)).hasAlpha)
            #expect(decoded.alphaMode == .none)
            sizes.append(encoded.count)
            var sum = 0.0
            for y in stride(from: 0, to: 192, by: 3) {
                for x in stride(from: 0, to: 256, by: 3) {
                    let a = source.pixel(x: x, y: y), b = decoded.pixel(x: x, y: y)
                    sum += Double(abs(Int(a.r) - Int(b.r)) + abs(Int(a.g) - Int(b.g)) + abs(Int(a.b) - Int(b.b)))
                }
            }
            errors.append(sum)
        }
        #expect(sizes[0] < sizes[1] && sizes[1] < sizes[2], "sizes by quality: \(sizes)")
        #expect(errors[0] > errors[2], "errors by quality: \(errors)")
    }

    @Test("several frames become an animation with their durations and loop count")
    func animation() throws {
        let coders = try JXLTesting.coders()
        let frames = try (0..<3).map { index in
            try JXLTesting.picture(width: 32, height: 24, seed: index * 50).with(durationMilliseconds: [40, 120, 0][index])
        }
        let encoded = try coders.encode(frames: frames, format: "jxl", options: EncodeOptions(lossless: true, loopCount: 2))
        let info = try coders.probe(data: encoded)
        #expect(info.frameCount == 3 && info.loopCount == 2)
        let decoded = try coders.allFrames(data: encoded, options: DecodeOptions(colorOutput: .keep))
        #expect(decoded.map(\.durationMilliseconds) == [40, 120, 100], "a 0 ms frame is shown for 100 ms, as browsers do")
        #expect(decoded.map(\.bytes) == frames.map(\.bytes) ? true : false, "the frames did not round-trip losslessly")
    }

    @Test("frames of different sizes and empty input are refused with one line")
    func refusals() throws {
        let coders = try JXLTesting.coders()
        let frames = [try JXLTesting.picture(width: 8, height: 8), try JXLTesting.picture(width: 9, height: 8)]
        #expect(throws: PipelineError.self) { try coders.encode(frames: frames, format: "jxl") }
    }
}
