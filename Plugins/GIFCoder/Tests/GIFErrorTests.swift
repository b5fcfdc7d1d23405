import PipelineHost
import Testing
import TestSupport

/// Bad input gives the right status with a message, never a crash or a huge allocation.
@Suite("GIF errors and limits")
struct GIFErrorTests {
    /// A 3-frame 16x12 animation with a noisy pattern, so that each frame's LZW data spans many bytes.
    static func sample() -> [UInt8] {
        var gif = GIFWriter(width: 16, height: 12, globalPalette: GIFTesting.palette)
        gif.loop(0)
        for frame in 0..<3 {
            gif.control(disposal: 1, delayCentiseconds: 4)
            gif.image(width: 16, height: 12, indices: (0..<(16 * 12)).map { UInt8(($0 * 7 + frame) % 8) }, codeSize: 3)
        }
        gif.trailer()
        return gif.bytes
    }

    /// Byte offsets of the sample: header + global table end at 13 + 24 + 19 (loop) = 56; frame 0 starts there.
    static let firstFrameStart = 13 + 24 + 19

    @Test("a GIF cut inside its header, palette or first frame is .truncated for decode and probe")
    func truncatedFirstFrame() throws {
        let gif = Self.sample()
        let coders = try GIFTesting.coders()
        let frameBytes = (gif.count - Self.firstFrameStart) / 3
        for length in Array(6..<Self.firstFrameStart) + Array(stride(from: Self.firstFrameStart + 1, to: Self.firstFrameStart + frameBytes - 1, by: 7)) {
            let cut = Array(gif.prefix(length))
            let status = failureStatus { _ = try coders.decode(data: cut) }
            #expect(status == .truncated, "decode cut at \(length) of \(gif.count): \(String(describing: status))")
            let probeStatus = failureStatus { _ = try coders.probe(data: cut) }
            // Cut inside the loop extension, before any image: probe also finds no frame.
            #expect(probeStatus == .truncated, "probe cut at \(length): \(String(describing: probeStatus))")
        }
    }

    @Test("a GIF cut inside a later frame: earlier frames decode, that frame is .truncated, probe counts complete frames")
    func truncatedLaterFrame() throws {
        let gif = Self.sample()
        let coders = try GIFTesting.coders()
        let cut = Array(gif.prefix(gif.count - 40))  // inside frame 2's LZW data
        _ = try coders.decode(data: cut, options: DecodeOptions(frameIndex: 1))
        #expect(failureStatus { _ = try coders.decode(data: cut, options: DecodeOptions(frameIndex: 2)) } == .truncated)
        let reader = try coders.frames(data: cut)
        #expect(try reader.next() != nil)
        #expect(try reader.next() != nil)
        let error = #expect(throws: PipelineError.self) { _ = try reader.next() }
        #expect(error?.status == .truncated)
        let info = try coders.probe(data: cut)
        #expect(info.frameCount == 2)
        #expect(info.details.contains("truncated after 2 complete frames"))
    }

    @Test("a GIF without its trailer decodes every frame (browsers accept it)")
    func missingTrailer() throws {
        let gif = Array(Self.sample().dropLast())
        let frames = try GIFTesting.coders().frames(data: gif).readAll()
        #expect(frames.count == 3)
    }

    @Test("corrupt data is .invalidData: bad signature, unknown record, bad LZW code size, LZW garbage")
    func corrupt() throws {
        let coders = try GIFTesting.coders()
        let gif = Self.sample()
        // "GIF88a" is not sniffed as GIF at all.
        var badVersion = gif
        badVersion[4] = UInt8(ascii: "8")
        #expect(coders.coder(forData: badVersion) == nil)
        // An unknown record introducer where frame 0 should start.
        var badRecord = gif
        badRecord[Self.firstFrameStart] = 0x42
        #expect(failureStatus { _ = try coders.decode(data: badRecord) } == .invalidData)
        #expect(failureStatus { _ = try coders.probe(data: badRecord) } == .invalidData)
        // LZW minimum code size 12 (> 8) after frame 0's descriptor (8 bytes GCB + 10 bytes descriptor).
        var badCodeSize = gif
        badCodeSize[Self.firstFrameStart + 8 + 10] = 12
        let status = failureStatus { _ = try coders.decode(data: badCodeSize) }
        #expect(status == .invalidData || status == .truncated, "\(String(describing: status))")
        // Codes that reference entries not yet defined.
        var garbage = gif
        for i in 0..<40 { garbage[Self.firstFrameStart + 8 + 10 + 2 + i] = 0xFF }
        #expect(failureStatus { _ = try coders.decode(data: garbage) } == .invalidData)
    }

    @Test("a frame without any colour table is .invalidData")
    func noColourTable() throws {
        var gif = GIFWriter(width: 2, height: 2)
        gif.image(width: 2, height: 2, indices: [0, 1, 1, 0])
        gif.trailer()
        let error = #expect(throws: PipelineError.self) { _ = try GIFTesting.coders().decode(data: gif.bytes) }
        #expect(error?.status == .invalidData)
        #expect("\(error.map { "\($0)" } ?? "")".contains("colour table"))
    }

    @Test("random bytes after the signature never crash")
    func fuzz() throws {
        let coders = try GIFTesting.coders()
        var generator = SystemRandomNumberGenerator()
        let base = Self.sample()
        for round in 0..<300 {
            var bytes = base
            for _ in 0..<(1 + round % 8) {
                let at = Int.random(in: 6..<bytes.count, using: &generator)
                bytes[at] = UInt8.random(in: 0...255, using: &generator)
            }
            if round % 3 == 0 { bytes = Array(bytes.prefix(Int.random(in: 6..<bytes.count, using: &generator))) }
            _ = failureStatus { _ = try coders.decode(data: bytes) }
            // Only when the header parses: FrameReader frees its buffers twice when frames_open fails (host bug,
            // reported); the plugin's open only fails on the header.
            if failureStatus({ _ = try coders.probe(data: bytes) }) == nil {
                _ = failureStatus { _ = try coders.frames(data: bytes).readAll() }
            }
        }
    }

    @Test("a 65535x65535 canvas is .limitExceeded before anything is allocated")
    func hugeCanvas() throws {
        var gif = GIFWriter(width: 65535, height: 65535, globalPalette: GIFTesting.palette)
        gif.image(width: 1, height: 1, indices: [0], codeSize: 3)
        gif.trailer()
        let coders = try GIFTesting.coders()
        for options in [DecodeOptions(), DecodeOptions(frameIndex: 0, firstFrameOnly: true)] {
            let error = #expect(throws: PipelineError.self) { _ = try coders.decode(data: gif.bytes, options: options) }
            #expect(error?.status == .limitExceeded)
        }
        let error = #expect(throws: PipelineError.self) { _ = try coders.frames(data: gif.bytes).next() }
        #expect(error?.status == .limitExceeded)
        // Probe only reports the size.
        let info = try coders.probe(data: gif.bytes)
        #expect((info.width, info.height) == (65535, 65535))
        // A first frame larger than a small screen grows the canvas, and that is checked too.
        var grown = GIFWriter(width: 1, height: 1, globalPalette: GIFTesting.palette)
        grown.raw([0x2C] + GIFWriter.word(0) + GIFWriter.word(0) + GIFWriter.word(60000) + GIFWriter.word(60000) + [0, 3, 1, 0x08, 0])
        let small = DecodeOptions(limits: DecodeLimits(maxPixels: 1 << 20))
        #expect(failureStatus { _ = try coders.decode(data: grown.bytes, options: small) } == .limitExceeded)
    }

    @Test("100000 tiny frames hit the frame limit (1000 here) in probe, decode and the frame reader")
    func tooManyFrames() throws {
        var gif = GIFWriter(width: 1, height: 1, globalPalette: GIFTesting.palette)
        gif.loop(0)
        let frame: [UInt8] = {
            var one = GIFWriter(width: 1, height: 1)
            let start = one.bytes.count
            one.control(disposal: 1, delayCentiseconds: 2)
            one.image(width: 1, height: 1, indices: [1], codeSize: 2)
            return Array(one.bytes[start...])
        }()
        gif.raw(Array([[UInt8]](repeating: frame, count: 100_000).joined()))
        gif.trailer()
        let options = DecodeOptions(limits: DecodeLimits(maxFrames: 1000))
        let coders = try GIFTesting.coders()
        #expect(failureStatus { _ = try coders.probe(data: gif.bytes, options: options) } == .limitExceeded)
        #expect(failureStatus { _ = try coders.decode(data: gif.bytes, options: DecodeOptions(frameIndex: 5000, limits: options.limits)) } == .limitExceeded)
        #expect(failureStatus { _ = try coders.frames(data: gif.bytes, options: options).readAll() } == .limitExceeded)
        // Frame 0 alone needs no scan of the rest.
        let first = try coders.decode(data: gif.bytes, options: options)
        #expect(GIFTesting.picture(first) == ["G"])
        #expect(first.durationMilliseconds == 20)
        // Without the small limit the scan counts them all.
        let info = try coders.probe(data: gif.bytes, options: DecodeOptions(limits: DecodeLimits(maxFrames: 0)))
        #expect(info.frameCount == 100_000)
    }

    @Test("a page index other than 0 is .notFound; first-frame-only with a later frame is .notFound")
    func notFound() throws {
        let coders = try GIFTesting.coders()
        #expect(failureStatus { _ = try coders.decode(data: Self.sample(), options: DecodeOptions(pageIndex: 1)) } == .notFound)
        #expect(failureStatus { _ = try coders.decode(data: Self.sample(), options: DecodeOptions(frameIndex: 1, firstFrameOnly: true)) } == .notFound)
    }

    @Test("zero-sized frames and a zero-sized screen")
    func zeroSizes() throws {
        // A screen of 0x0 takes the first frame's size (as Chromium does).
        var zeroScreen = GIFWriter(width: 0, height: 0, globalPalette: GIFTesting.palette)
        zeroScreen.image(left: 0, top: 0, width: 2, height: 1, indices: GIFTesting.indices(["RG"]), codeSize: 3)
        zeroScreen.trailer()
        let image = try GIFTesting.coders().decode(data: zeroScreen.bytes)
        #expect(GIFTesting.picture(image) == ["RG"])
        // A 0x0 frame (its LZW data is skipped) followed by a real one.
        var empty = GIFWriter(width: 2, height: 1, globalPalette: GIFTesting.palette)
        empty.control(disposal: 1, delayCentiseconds: 3)
        empty.image(width: 0, height: 0, indices: [], codeSize: 3)
        empty.control(disposal: 1, delayCentiseconds: 3)
        empty.image(width: 2, height: 1, indices: GIFTesting.indices(["BB"]), codeSize: 3)
        empty.trailer()
        let frames = try GIFTesting.coders().frames(data: empty.bytes).readAll()
        #expect(frames.map(GIFTesting.picture) == [[".."], ["BB"]])
    }
}
