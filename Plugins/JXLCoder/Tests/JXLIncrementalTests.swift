import Foundation
import PipelineHost
import Testing
import TestSupport

/// Progressive previews through the incremental slot: a progressive JPEG XL (cjxl -p) shows a whole-size picture
/// from its first part, better as more arrives, and the last update equals a one-shot decode.
@Suite("JPEG XL incremental decoding")
struct JXLIncrementalTests {
    static func file(progressive: Bool) throws -> [UInt8] {
        let convert = try Skip.unlessTool("convert"), cjxl = try Skip.unlessTool("cjxl")
        let folder = try TestPaths.temporaryDirectory("jxl-incremental")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let made = try CommandLine.run(convert, ["-size", "512x384", "-seed", "5", "plasma:fractal", "-depth", "8", folder + "/in.png"])
        try #require(made.status == 0, "\(made.stderr)")
        let encoded = try CommandLine.run(cjxl, [folder + "/in.png", folder + "/out.jxl", "-d", "1"] + (progressive ? ["-p"] : []))
        try #require(encoded.status == 0, "\(encoded.stderr)")
        return try TestFiles.read(folder + "/out.jxl")
    }

    static func meanDifference(_ a: Image, _ b: Image) -> Double {
        zip(a.bytes, b.bytes).reduce(0.0) { $0 + Double(abs(Int($1.0) - Int($1.1))) } / Double(max(1, a.bytes.count))
    }

    @Test("a progressive file previews at full size from its first part, improving, and ends exactly as decode")
    func progressivePreviews() throws {
        let bytes = try Self.file(progressive: true)
        let coders = try JXLTesting.coders()
        let oneShot = try coders.decode(data: bytes)
        let decoder = try #require(try coders.incrementalDecoder(forPrefix: Array(bytes.prefix(bytes.count / 10))))
        var previews: [(fraction: Int, image: Image)] = []
        for tenth in 1...9 {
            if let preview = try decoder.update(data: Array(bytes.prefix(bytes.count * tenth / 10)), isFinal: false) {
                #expect((preview.width, preview.height) == (512, 384), "a preview has the final size")
                previews.append((tenth, preview))
            }
        }
        let final = try #require(try decoder.update(data: bytes, isFinal: true))
        #expect(final.bytes == oneShot.bytes, "the last update differs from a one-shot decode")
        #expect(previews.count >= 3, "only \(previews.count) previews from 9 partial updates")
        guard let first = previews.first, let last = previews.last else { return }
        #expect(first.fraction <= 5, "no preview before half the file")
        let early = Self.meanDifference(first.image, oneShot), late = Self.meanDifference(last.image, oneShot)
        #expect(late < early, "previews should get closer: \(early) at \(first.fraction)/10, \(late) at \(last.fraction)/10")
        print("jxl progressive previews: \(previews.count) of 9; mean difference \(early) at \(first.fraction)/10, \(late) at \(last.fraction)/10")
    }

    @Test("a cut header is NEED_MORE, not an error; a non-progressive file still ends exactly as decode")
    func headerAndPlainFiles() throws {
        let bytes = try Self.file(progressive: false)
        let coders = try JXLTesting.coders()
        let decoder = try #require(try coders.incrementalDecoder(forPrefix: Array(bytes.prefix(64))))
        for length in [1, 12, 20, 40] {
            #expect(try decoder.update(data: Array(bytes.prefix(length)), isFinal: false) == nil, "\(length) bytes gave a preview")
        }
        for fraction in [4, 2] { _ = try decoder.update(data: Array(bytes.prefix(bytes.count / fraction)), isFinal: false) }
        #expect(try decoder.update(data: bytes, isFinal: true)?.bytes == (try coders.decode(data: bytes)).bytes)
        // The final update of a cut file is an error with one line, as a one-shot decode of it.
        let cut = try #require(try coders.incrementalDecoder(forPrefix: Array(bytes.prefix(64))))
        let half = Array(bytes.prefix(bytes.count / 2))
        let status = failureStatus { _ = try cut.update(data: half, isFinal: true) }
        #expect(status != nil && status == failureStatus { _ = try coders.decode(data: half) }, "\(String(describing: status))")
    }
}

/// Shrink-on-load from the DC pass: a lossy still whose thumbnail needs at most 1:8 decodes only its DC, and the
/// result stays close to a full decode resampled by the host.
@Suite("JPEG XL DC thumbnails")
struct JXLDCThumbnailTests {
    @Test("a 2048x1536 lossy photo at 200 px: DC-only equals full decode + resample within 40 dB PSNR; lossless files decode fully")
    func dcThumbnailQuality() throws {
        let convert = try Skip.unlessTool("convert"), cjxl = try Skip.unlessTool("cjxl")
        let folder = try TestPaths.temporaryDirectory("jxl-dc")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let made = try CommandLine.run(convert, ["-size", "2048x1536", "-seed", "8", "plasma:fractal", "-blur", "0x1", "-depth", "8", folder + "/in.png"])
        try #require(made.status == 0, "\(made.stderr)")
        let encoded = try CommandLine.run(cjxl, [folder + "/in.png", folder + "/lossy.jxl", "-d", "1"])
        try #require(encoded.status == 0, "\(encoded.stderr)")
        let coders = try JXLTesting.coders()
        let bytes = try TestFiles.read(folder + "/lossy.jxl")
        let box = PixelSize(width: 200, height: 200)
        let clock = ContinuousClock()
        var thumbnail: Image?
        let dcTime = try clock.measure { thumbnail = try coders.decode(data: bytes, options: DecodeOptions(thumbnailSize: box)) }
        var full: Image?
        let fullTime = try clock.measure { full = try coders.decode(data: bytes) }
        let small = try #require(thumbnail), whole = try #require(full)
        let reference = try ImageTransformers.Resize.resample(whole, to: box, mode: .fit)
        #expect((small.width, small.height) == (reference.width, reference.height))
        var squared = 0.0
        for (a, b) in zip(small.bytes, reference.bytes) {
            let difference = Double(Int(a) - Int(b))
            squared += difference * difference
        }
        let psnr = 10 * log10(65025 / max(squared / Double(small.bytes.count), 1e-9))
        #expect(psnr >= 40, "DC thumbnail vs full decode + resample: PSNR \(psnr) dB")
        print("jxl DC thumbnail 2048x1536 -> 200 px: PSNR \(psnr) dB vs full decode + resample; DC decode \(dcTime), full decode \(fullTime)")
    }
}
