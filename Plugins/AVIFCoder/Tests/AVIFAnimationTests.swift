import Foundation
import PipelineHost
import TestSupport
import Testing

/// Image sequences: frame count, per-frame durations, lazy iteration, frame_index, first-frame-only.
@Suite struct AVIFAnimationTests {
    static let sequences = [
        "avif/star-8bpc.avifs", "avif/star-12bpc.avifs", "avif/star-10bpc-with-alpha.avifs",
        "avif/colors-animated-8bpc.avif", "avif/colors-animated-8bpc-alpha-exif-xmp.avif",
    ]

    /// Frame count = manifest; each frame's duration (ms, rounded) = what `avifdec --info` prints; frames are the
    /// full canvas and numbered in order; loop count is reported as not stated (libavif 0.11 cannot read it).
    @Test(arguments: sequences) func framesAndDurations(_ relative: String) throws {
        guard let (corpus, rows) = try AVIFTest.manifestRows(), let row = rows.first(where: { $0.path == relative }) else { try Skip.because("corpus not found", bootstrapProvides: false) }
        let bytes = try TestFiles.read(corpus + "/" + relative)
        let info = try AVIFTest.probe(bytes)
        #expect(info.frameCount == row.framesOrPages)
        #expect(info.loopCount == nil)
        let frames = try AVIFTest.frames(bytes)
        #expect(frames.count == row.framesOrPages)
        #expect(frames.map(\.index) == Array(0..<frames.count))
        #expect(frames.allSatisfy { ($0.width, $0.height) == (row.width, row.height) })
        if ReferenceTools.available {
            let expected = try ReferenceTools.durations(corpus + "/" + relative)
            #expect(frames.map(\.durationMilliseconds) == expected, "\(relative)")
            print("animation \(relative): \(frames.count) frames, durations \(frames.map(\.durationMilliseconds)) ms")
        }
        // decode(frameIndex: N) gives the same pixels as the Nth frame of the iteration.
        for index in [0, frames.count - 1] {
            let single = try AVIFTest.decode(bytes, DecodeOptions(frameIndex: index))
            #expect(single.bytes == frames[index].bytes, "\(relative) frame \(index)")
            #expect(single.index == index && single.durationMilliseconds == frames[index].durationMilliseconds)
        }
    }

    @Test(.requiresCorpus) func firstFrameOnlyAndFrameErrors() throws {
        guard let bytes = try AVIFTest.corpusFile("avif/star-8bpc.avifs") else { return }
        #expect(try AVIFTest.frames(bytes, DecodeOptions(firstFrameOnly: true)).count == 1)
        #expect(AVIFTest.decodeStatus(bytes, DecodeOptions(frameIndex: 5)) == .notFound)
        #expect(AVIFTest.decodeStatus(bytes, DecodeOptions(pageIndex: 1)) == .notFound)
        // A frame limit below the file's 5 frames: libavif refuses the sample table, so nothing is decoded.
        let limited = DecodeOptions(limits: DecodeLimits(maxFrames: 3))
        #expect(AVIFTest.decodeStatus(bytes, limited) == .limitExceeded)
        // Not checked through `frames(data:)`: the host's FrameReader frees its buffers twice when frames_open
        // fails (release() in init, then again in deinit), which aborts the process. Reported to the lead.
        // ... but a first-frame-only decode touches one frame, so the frame limit does not apply to it.
        #expect(try AVIFTest.frames(bytes, DecodeOptions(firstFrameOnly: true, limits: DecodeLimits(maxFrames: 3))).count == 1)
        // A still image is one frame of duration 0.
        guard let still = try AVIFTest.corpusFile("avif/kodim03_yuv420_8bpc.avif") else { return }
        let frames = try AVIFTest.frames(still)
        #expect(frames.count == 1 && frames[0].durationMilliseconds == 0)
        #expect(try AVIFTest.decode(still).durationMilliseconds == 0)
    }

    /// 80 frames of 1024x1024 (4 MiB each as RGBA8, 320 MiB if kept) iterate with resident memory growing by far
    /// less than that: the plugin decodes one frame at a time into a buffer the host owns and the test drops.
    /// The bound (160 MiB) leaves room for tests running in parallel in this process; a reader that collected
    /// frames would exceed it by 160 MiB.
    @Test func iteratingALongSequenceKeepsMemoryBounded() throws {
        guard ReferenceTools.available else { try Skip.because(ReferenceTools.missingMessage, bootstrapProvides: true) }
        let folder = try TestPaths.temporaryDirectory("avif-long")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (width, height, count) = (1024, 1024, 80)
        try TestFiles.write(Self.movingBars(width: width, height: height, frames: count), to: folder + "/in.y4m")
        let encode = try CommandLine.run(
            ReferenceTools.avifenc, ["-s", "10", "-j", "1", "--min", "40", "--max", "40", folder + "/in.y4m", folder + "/long.avifs"])
        try #require(encode.status == 0, "avifenc: \(encode.stderr)")
        let bytes = try TestFiles.read(folder + "/long.avifs")

        let reader = try AVIFTest.coders().frames(data: bytes)
        _ = try reader.next()
        let baseline = Self.residentBytes()
        var peak = baseline
        var frames = 1
        var durations = Set<Int>()
        while let frame = try reader.next() {
            frames += 1
            durations.insert(frame.durationMilliseconds)
            peak = max(peak, Self.residentBytes())
        }
        #expect(frames == count)
        #expect(durations == [40])  // 25 frames per second in the y4m header
        let growth = peak - baseline
        #expect(growth < 160 << 20, "resident memory grew by \(growth >> 20) MiB over \(count) frames")
        print("animation: \(count) frames of \(width)x\(height) iterated; resident memory grew by \(growth >> 20) MiB "
              + "(\((count * width * height * 4) >> 20) MiB if kept)")
    }

    /// A YUV4MPEG2 (4:2:0) clip of vertical bars moving right, the input avifenc reads as a sequence.
    static func movingBars(width: Int, height: Int, frames: Int) -> [UInt8] {
        var out = Array("YUV4MPEG2 W\(width) H\(height) F25:1 Ip A1:1 C420jpeg\n".utf8)
        out.reserveCapacity(out.count + frames * (6 + width * height * 3 / 2))
        let chroma = [UInt8](repeating: 128, count: width * height / 2)
        for n in 0..<frames {
            out += Array("FRAME\n".utf8)
            let row = (0..<width).map { UInt8(truncatingIfNeeded: ($0 + n * 8) / 4 * 16) }
            for _ in 0..<height { out += row }
            out += chroma
        }
        return out
    }

    /// VmRSS of this process, in bytes.
    static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }
}
