import PipelineHost
import Testing
import TestSupport

/// An animation written byte by byte whose every composited frame is known: disposal none / background /
/// previous / unspecified, transparency, a local palette, interlacing, a frame with no control block.
@Suite("GIF disposal and compositing")
struct GIFDisposalTests {
    /// Six frames on a 6x6 canvas; `expected[i]` is the canvas browsers show for frame i.
    static func animation() -> [UInt8] {
        var gif = GIFWriter(width: 6, height: 6, globalPalette: GIFTesting.palette)
        gif.loop(2)
        // 0: the whole canvas red; kept.
        gif.control(disposal: 1, delayCentiseconds: 10)
        gif.image(width: 6, height: 6, indices: GIFTesting.indices(Array(repeating: "RRRRRR", count: 6)), codeSize: 3)
        // 1: a green 2x2 square at (1,1); cleared to transparent afterwards.
        gif.control(disposal: 2, delayCentiseconds: 0)
        gif.image(left: 1, top: 1, width: 2, height: 2, indices: GIFTesting.indices(["GG", "GG"]), codeSize: 3)
        // 2: blue 3x2 at (3,0) whose first pixel is transparent (index 7); restored to what was under it afterwards.
        gif.control(disposal: 3, delayCentiseconds: 5, transparentIndex: 7)
        gif.image(left: 3, top: 0, width: 3, height: 2, indices: GIFTesting.indices(["MBB", "BBB"]), codeSize: 3)
        // 3: an interlaced 2x6 column with its own 4-colour palette (Y, C, M, K), one colour per row.
        gif.control(disposal: 0, delayCentiseconds: 1)
        let local: GIFWriter.Palette = [(255, 255, 0), (0, 255, 255), (255, 0, 255), (0, 0, 0)]
        gif.image(width: 2, height: 6, indices: [0, 0, 1, 1, 2, 2, 3, 3, 0, 0, 1, 1], localPalette: local, interlaced: true)
        // 4: a fully transparent 2x2 at (4,4), disposal background: shows nothing, then clears its rectangle.
        gif.control(disposal: 2, delayCentiseconds: 200, transparentIndex: 7)
        gif.comment("a comment between frames")
        gif.image(left: 4, top: 4, width: 2, height: 2, indices: GIFTesting.indices(["MM", "MM"]), codeSize: 3)
        // 5: one black pixel at (0,0) with no graphic control block at all.
        gif.image(width: 1, height: 1, indices: GIFTesting.indices(["K"]), codeSize: 3)
        gif.trailer()
        return gif.bytes
    }

    static let expected: [[String]] = [
        ["RRRRRR", "RRRRRR", "RRRRRR", "RRRRRR", "RRRRRR", "RRRRRR"],
        ["RRRRRR", "RGGRRR", "RGGRRR", "RRRRRR", "RRRRRR", "RRRRRR"],
        ["RRRRBB", "R..BBB", "R..RRR", "RRRRRR", "RRRRRR", "RRRRRR"],
        ["YYRRRR", "CC.RRR", "MM.RRR", "KKRRRR", "YYRRRR", "CCRRRR"],
        ["YYRRRR", "CC.RRR", "MM.RRR", "KKRRRR", "YYRRRR", "CCRRRR"],
        ["KYRRRR", "CC.RRR", "MM.RRR", "KKRRRR", "YYRR..", "CCRR.."],
    ]
    static let durations = [100, 100, 50, 100, 2000, 100]

    @Test("the frame reader yields every composited frame exactly, with browser durations and indices")
    func frames() throws {
        let reader = try GIFTesting.coders().frames(data: Self.animation())
        let frames = try reader.readAll()
        #expect(frames.count == 6)
        for (i, frame) in frames.enumerated() {
            #expect((frame.width, frame.height) == (6, 6))
            #expect(frame.pixelFormat == .rgba8)
            #expect(frame.alphaMode == .straight)
            #expect(frame.index == i)
            #expect(frame.durationMilliseconds == Self.durations[i], "frame \(i)")
            #expect(GIFTesting.picture(frame) == Self.expected[i], "frame \(i)")
        }
    }

    @Test("decode with frameIndex N composites frames 0 through N")
    func decodeFrameIndex() throws {
        let coders = try GIFTesting.coders()
        let gif = Self.animation()
        for i in 0..<6 {
            let image = try coders.decode(data: gif, options: DecodeOptions(frameIndex: i))
            #expect(image.index == i)
            #expect(image.durationMilliseconds == Self.durations[i], "frame \(i)")
            #expect(GIFTesting.picture(image) == Self.expected[i], "frame \(i)")
        }
    }

    @Test("a frame index past the end is .notFound naming the frame count")
    func frameOutOfRange() throws {
        let coders = try GIFTesting.coders()
        let error = #expect(throws: PipelineError.self) { _ = try coders.decode(data: Self.animation(), options: DecodeOptions(frameIndex: 6)) }
        #expect(error?.status == .notFound)
        #expect("\(error.map { "\($0)" } ?? "")".contains("6 frames"))
    }

    @Test("probe counts frames and reads the loop count (2 repetitions = played 3 times)")
    func probe() throws {
        let info = try GIFTesting.coders().probe(data: Self.animation())
        #expect(info.format == "gif")
        #expect((info.width, info.height) == (6, 6))
        #expect(info.frameCount == 6)
        #expect(info.loopCount == 3)
        #expect(info.hasAlpha)
        #expect(info.bitDepth == 8)
        #expect(info.details == "GIF89a, 6 frames, global palette, 1 local palette, interlaced, transparency, plays 3 times")
        #expect(info.coderID == GIFTesting.coderID)
    }

    @Test("first-frame-only stops the frame reader after frame 0")
    func firstFrameOnly() throws {
        let reader = try GIFTesting.coders().frames(data: Self.animation(), options: DecodeOptions(firstFrameOnly: true))
        let frames = try reader.readAll()
        #expect(frames.count == 1)
        #expect(frames.first.map(GIFTesting.picture) == Self.expected[0])
    }

    @Test("frames are resized by the host like a still decode")
    func resizedFrames() throws {
        let reader = try GIFTesting.coders().frames(
            data: Self.animation(), options: DecodeOptions(thumbnailSize: PixelSize(width: 3, height: 3)))
        let frames = try reader.readAll()
        #expect(frames.count == 6)
        #expect(frames.allSatisfy { ($0.width, $0.height) == (3, 3) })
    }
}
