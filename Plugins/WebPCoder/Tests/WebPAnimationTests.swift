import Foundation
import PipelineHost
import Testing
import TestSupport

/// Animated WebP through WebPAnimDecoder: composited frames, durations, loop count, lazily.
@Suite("WebP animation")
struct WebPAnimationTests {
    /// img2webp: f1 lossless 70 ms, f2 (transparent circle) lossless 120 ms, f3 lossy 5 ms; loop count 3.
    static func makeAnimation(in folder: String) throws -> [UInt8] {
        try WebPTesting.run("img2webp -loop 3 -lossless -d 70 f1.png -d 120 f2.png -lossy -q 80 -d 5 f3.png -o anim.webp", in: folder)
        return try TestFiles.read(folder + "/anim.webp")
    }

    @Test("img2webp frames: lossless frames exact, the lossy one within 48 per channel and mean < 6; durations and loop count")
    func frames() throws {
        guard WebPTesting.hasTools else { try Skip.because(WebPTesting.missing, bootstrapProvides: true) }
        let folder = try WebPTesting.workspace()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let webp = try Self.makeAnimation(in: folder)
        let coders = try WebPTesting.coders()
        let frames = try coders.frames(data: webp).readAll()
        #expect(frames.count == 3)
        // 5 ms plays as 100 ms (Chromium's rule for durations of 10 ms or less).
        #expect(frames.map(\.durationMilliseconds) == [70, 120, 100])
        #expect(frames.map(\.index) == [0, 1, 2])
        #expect(frames.allSatisfy { $0.alphaMode == .straight && ($0.width, $0.height) == (64, 48) })
        let sources = try ["f1.png", "f2.png", "f3.png"].map { try WebPTesting.png($0, in: folder).bytes }
        #expect(WebPTesting.compare(frames[0].bytes, sources[0], width: 64).maxChannel == 0)
        #expect(WebPTesting.compare(frames[1].bytes, sources[1], width: 64).maxChannel == 0)
        let lossy = WebPTesting.compare(frames[2].bytes, sources[2], width: 64, tolerance: 48)
        print("WebP animation lossy frame vs source: \(lossy)")
        #expect(lossy.meanChannel < 6 && lossy.pixelsOverTolerance == 0, "\(lossy)")  // measured mean 5.36, max 40

        let info = try coders.probe(data: webp)
        #expect((info.width, info.height, info.frameCount, info.loopCount) == (64, 48, 3, 3))
        #expect(info.hasAlpha)
        #expect(info.details == "animated, 3 frames, plays 3 times, alpha")

        // decode(frameIndex:) composites up to that frame and agrees with the reader.
        for i in 0..<3 {
            let image = try coders.decode(data: webp, options: DecodeOptions(frameIndex: i))
            #expect(image.bytes == frames[i].bytes, "frame \(i)")
            #expect(image.index == i && image.durationMilliseconds == frames[i].durationMilliseconds)
        }
        let error = #expect(throws: PipelineError.self) { _ = try coders.decode(data: webp, options: DecodeOptions(frameIndex: 3)) }
        #expect(error?.status == .notFound)
        #expect("\(error.map { "\($0)" } ?? "")".contains("3 frames"))
        #expect(try coders.frames(data: webp, options: DecodeOptions(firstFrameOnly: true)).readAll().count == 1)
    }

    @Test("gif2webp of an ImageMagick GIF with disposals decodes to ImageMagick's coalesced frames, exactly")
    func fromGIF() throws {
        guard WebPTesting.hasTools else { try Skip.because(WebPTesting.missing, bootstrapProvides: true) }
        let folder = try WebPTesting.workspace()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try WebPTesting.run(
            "convert -dispose None -delay 7 f1.png -dispose Background -delay 12 f2.png "
                + "-dispose Previous \\( -size 64x48 xc:none -fill yellow -draw 'rectangle 5,5 30,20' \\) "
                + "-dispose None \\( -size 64x48 xc:none -fill blue -draw 'rectangle 40,30 60,44' \\) -loop 3 source.gif && "
                + "gif2webp -quiet source.gif -o anim.webp && convert source.gif -coalesce -depth 8 rgba:coalesced.rgba", in: folder)
        let reference = try TestFiles.read(folder + "/coalesced.rgba")
        let frames = try WebPTesting.coders().frames(data: try TestFiles.read(folder + "/anim.webp")).readAll()
        #expect(frames.count == 4)
        let frameBytes = 64 * 48 * 4
        for (i, frame) in frames.enumerated() where reference.count >= (i + 1) * frameBytes {
            let difference = WebPTesting.compare(frame.bytes, Array(reference[(i * frameBytes)..<((i + 1) * frameBytes)]), width: 64)
            #expect(difference.maxChannel == 0, "frame \(i): \(difference)")
        }
        // ImageMagick's -delay applies to every later image too.
        #expect(frames.map(\.durationMilliseconds) == [70, 120, 120, 120])
        // ImageMagick stores 2 repetitions for -loop 3; gif2webp writes plays = repetitions + 1 = 3.
        #expect(try WebPTesting.coders().probe(data: try TestFiles.read(folder + "/anim.webp")).loopCount == 3)
    }

    @Test("the frame limit: probe, decode past it and the reader fail with .limitExceeded; earlier frames decode")
    func frameLimit() throws {
        guard WebPTesting.hasTools else { try Skip.because(WebPTesting.missing, bootstrapProvides: true) }
        let folder = try WebPTesting.workspace()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let inputs = (0..<12).map { $0 % 2 == 0 ? "-d 40 f1.png" : "-d 40 f3.png" }.joined(separator: " ")
        try WebPTesting.run("img2webp -lossless \(inputs) -o twelve.webp", in: folder)
        let webp = try TestFiles.read(folder + "/twelve.webp")
        let coders = try WebPTesting.coders()
        let limits = DecodeLimits(maxFrames: 10)
        #expect(try coders.probe(data: webp).frameCount == 12)
        #expect(failureStatus { _ = try coders.probe(data: webp, options: DecodeOptions(limits: limits)) } == .limitExceeded)
        #expect(failureStatus { _ = try coders.frames(data: webp, options: DecodeOptions(limits: limits)).readAll() } == .limitExceeded)
        #expect(failureStatus { _ = try coders.decode(data: webp, options: DecodeOptions(frameIndex: 11, limits: limits)) } == .limitExceeded)
        _ = try coders.decode(data: webp, options: DecodeOptions(frameIndex: 5, limits: limits))
    }

    @Test("animation frames are resized by the host")
    func resized() throws {
        guard WebPTesting.hasTools else { try Skip.because(WebPTesting.missing, bootstrapProvides: true) }
        let folder = try WebPTesting.workspace()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let frames = try WebPTesting.coders().frames(
            data: try Self.makeAnimation(in: folder), options: DecodeOptions(thumbnailSize: PixelSize(width: 32, height: 32))).readAll()
        #expect(frames.count == 3)
        #expect(frames.allSatisfy { ($0.width, $0.height) == (32, 24) })
    }
}
