import Foundation
import PipelineHost
import TestSupport
import Testing

/// Encoding through libavif + aom, checked by decoding the result (with this plugin and with avifdec).
@Suite struct AVIFEncodeTests {
    static func image(_ raster: Raster, alphaMode: AlphaMode = .straight) throws -> Image {
        try Image(width: raster.width, height: raster.height, pixelFormat: .rgba8, alphaMode: alphaMode,
                  bytes: raster.samples.map { UInt8($0) })
    }

    /// A 16-bit image from an 8-bit raster, with 4 more bits of detail in each sample so 10/12-bit output matters.
    static func image16(_ raster: Raster) throws -> Image {
        var bytes: [UInt8] = []
        for (i, sample) in raster.samples.enumerated() {
            let value = i % 4 == 3 ? 65535 : UInt16(sample) << 8 | UInt16((i * 37) & 0xF0)
            withUnsafeBytes(of: value) { bytes += $0 }
        }
        return try Image(width: raster.width, height: raster.height, pixelFormat: .rgba16, alphaMode: .none, bytes: bytes)
    }

    /// Lossless 8-bit RGBA (identity matrix, 4:4:4, quantizer 0): every sample comes back exactly, alpha included,
    /// at odd sizes too; avifdec reads the same pixels.
    @Test(arguments: [(64, 48), (37, 23), (1, 1)]) func losslessIsExact(_ size: (Int, Int)) throws {
        let raster = Raster.pattern(width: size.0, height: size.1, alpha: true, seed: 3)
        let encoded = try AVIFTest.coders().encode(try Self.image(raster), format: "avif", options: EncodeOptions(lossless: true))
        let info = try AVIFTest.probe(encoded)
        #expect(info.details.hasPrefix("YUV444") && info.hasAlpha && info.bitDepth == 8, "\(info.details)")
        let decoded = try AVIFTest.decode(encoded)
        #expect(decoded.alphaMode == .straight)
        #expect(Difference(Raster(decoded), raster).maxChannel == 0)
        if ReferenceTools.available {
            let folder = try TestPaths.temporaryDirectory("avif-lossless")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            try TestFiles.write(encoded, to: folder + "/x.avif")
            #expect(Difference(try ReferenceTools.decode(folder + "/x.avif", depth: 8), raster).maxChannel == 0)
        }
    }

    /// Lossy 8-bit round trips: PSNR over RGB against the source, at least 34 dB at quality 75 (the default) and
    /// 44 dB at quality 95; higher quality is never worse and costs more bytes.
    @Test func lossyQualityAndSize() throws {
        let raster = Raster.pattern(width: 96, height: 64, seed: 5, noise: 2)
        let source = try Self.image(raster, alphaMode: .none)
        var results: [(quality: Int, psnr: Double, size: Int)] = []
        for quality in [30, 75, 95] {
            let encoded = try AVIFTest.coders().encode(source, format: "avif", options: EncodeOptions(quality: quality))
            let decoded = try AVIFTest.decode(encoded)
            #expect(decoded.alphaMode == .none, "opaque input writes no alpha plane")
            results.append((quality, Difference(Raster(decoded), raster).psnr(maxValue: 255), encoded.count))
        }
        print("encode: " + results.map { "q\($0.quality) \(String(format: "%.1f", $0.psnr)) dB \($0.size) B" }.joined(separator: ", "))
        #expect(results[1].psnr >= 34 && results[2].psnr >= 44, "\(results)")
        #expect(results[0].psnr <= results[1].psnr && results[1].psnr <= results[2].psnr)
        #expect(results[0].size < results[1].size && results[1].size < results[2].size)
    }

    /// RGBA16 input to 10- and 12-bit files: the depth is what was asked, and a high-bit-depth decode keeps the
    /// extra bits (PSNR at 16 bits above what 8 bits could give). Bit depth 16 is not an AV1 depth.
    @Test func highBitDepth() throws {
        let raster = Raster.pattern(width: 48, height: 32, seed: 9)
        let source = try Self.image16(raster)
        let original = Raster(source)
        for depth in [10, 12] {
            let encoded = try AVIFTest.coders().encode(source, format: "avif", options: EncodeOptions(bitDepth: depth, lossless: true))
            #expect(try AVIFTest.probe(encoded).bitDepth == depth)
            let decoded = try AVIFTest.decode(encoded, DecodeOptions(highBitDepth: true))
            #expect(decoded.pixelFormat == .rgba16)
            let difference = Difference(Raster(decoded), original)
            // Lossless at `depth` bits: only the rounding of 16-bit samples to depth bits is lost.
            #expect(difference.maxChannel <= 65535 >> (depth + 1) + 1, "\(depth)-bit: \(difference)")
            print("encode: \(depth)-bit lossless from RGBA16: \(difference), PSNR \(String(format: "%.1f", difference.psnr(maxValue: 65535))) dB")
        }
        let lossy = try AVIFTest.coders().encode(source, format: "avif", options: EncodeOptions(quality: 90))
        #expect(try AVIFTest.probe(lossy).bitDepth == 10, "RGBA16 input defaults to 10 bits")
        #expect(Difference(Raster(try AVIFTest.decode(lossy, DecodeOptions(highBitDepth: true))), original).psnr(maxValue: 65535) >= 36)
        #expect(throws: PipelineError.self) {
            try AVIFTest.coders().encode(source, format: "avif", options: EncodeOptions(bitDepth: 16))
        }
    }

    /// Premultiplied input is stored premultiplied (prem box) and decodes premultiplied, exactly when lossless.
    @Test func premultipliedInputStaysPremultiplied() throws {
        let raster = Raster.pattern(width: 30, height: 20, alpha: true, seed: 11).premultiplied(maxValue: 255)
        let encoded = try AVIFTest.coders().encode(try Self.image(raster, alphaMode: .premultiplied), format: "avif",
                                                   options: EncodeOptions(lossless: true))
        let decoded = try AVIFTest.decode(encoded)
        #expect(decoded.alphaMode == .premultiplied)
        #expect(Difference(Raster(decoded), raster).maxChannel == 0)
    }

    /// Lossy alpha: the alpha channel survives with the colour's quantizer; an all-opaque "straight" image is
    /// written without an alpha plane.
    @Test func alphaPlane() throws {
        let raster = Raster.pattern(width: 40, height: 40, alpha: true, seed: 13, noise: 2)
        let decoded = try AVIFTest.decode(try AVIFTest.coders().encode(try Self.image(raster), format: "avif",
                                                                        options: EncodeOptions(quality: 90)))
        #expect(decoded.alphaMode == .straight)
        let alpha = { (r: Raster) in Raster(width: r.width, height: r.height, samples: r.samples.enumerated().map { $0.offset % 4 == 3 ? $0.element : 0 }) }
        #expect(Difference(alpha(Raster(decoded)), alpha(raster)).psnr(maxValue: 255) >= 40)
        let opaque = Raster.pattern(width: 40, height: 40, seed: 13)
        let encoded = try AVIFTest.coders().encode(try Self.image(opaque), format: "avif")
        #expect(try !AVIFTest.probe(encoded).hasAlpha)
    }

    /// Several frames make an image sequence (major brand avis): frame count, sizes and durations come back, and
    /// avifdec reads the same durations. The source frames come from a sequence avifenc made with per-frame
    /// durations, because the host's Image has no public way to set a duration.
    @Test func sequence() throws {
        guard ReferenceTools.available else { try Skip.because(ReferenceTools.missingMessage, bootstrapProvides: true) }
        let folder = try TestPaths.temporaryDirectory("avif-sequence")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let durations = [40, 100, 250, 70]
        var arguments = ["-s", "10", "-j", "1", "-l", "--timescale", "1000"]
        for (index, duration) in durations.enumerated() {
            let png = try ReferenceTools.writePNG(Raster.pattern(width: 32, height: 24, seed: UInt32(index + 1), noise: 2), in: folder,
                                                  name: "f\(index).png")
            arguments += ["--duration", String(duration), png]
        }
        let made = try CommandLine.run(ReferenceTools.avifenc, arguments + [folder + "/source.avifs"])
        try #require(made.status == 0, "avifenc: \(made.stderr)")
        let frames = try AVIFTest.frames(try TestFiles.read(folder + "/source.avifs"))
        #expect(frames.map(\.durationMilliseconds) == durations)

        let encoded = try AVIFTest.coders().encode(frames: frames, format: "avif", options: EncodeOptions(quality: 80, speed: 10))
        #expect(Array(encoded[8..<12]) == Array("avis".utf8), "major brand of an image sequence")
        let info = try AVIFTest.probe(encoded)
        #expect(info.frameCount == 4 && info.loopCount == nil)
        let decoded = try AVIFTest.frames(encoded)
        #expect(decoded.map(\.durationMilliseconds) == durations)
        for (a, b) in zip(decoded, frames) { #expect(Difference(Raster(a), Raster(b)).psnr(maxValue: 255) >= 30) }
        try TestFiles.write(encoded, to: folder + "/ours.avifs")
        #expect(try ReferenceTools.durations(folder + "/ours.avifs") == durations)
        // Frames of different sizes cannot share a sequence.
        let small = try Self.image(Raster.pattern(width: 8, height: 8))
        #expect(throws: PipelineError.self) { try AVIFTest.coders().encode(frames: [frames[0], small], format: "avif") }
    }
}
