import Foundation
import PipelineHost
import TestSupport
import Testing

/// Decode options that are not about errors or animation: sizes, bit depth, threads, concurrency.
@Suite struct AVIFOptionsTests {
    /// Thumbnails come from the host's resampler (the coder does not declare IP_CODER_SCALES): the box is honoured
    /// for every mode and a box larger than the image does not upscale unless asked.
    @Test(.requiresCorpus) func thumbnails() throws {
        guard let bytes = try AVIFTest.corpusFile("avif/Ronda_rotate90.avif") else { return }  // 1080x1920 displayed
        let fit = try AVIFTest.decode(bytes, DecodeOptions(thumbnailSize: PixelSize(width: 256, height: 256)))
        #expect((fit.width, fit.height) == (144, 256))
        let fill = try AVIFTest.decode(bytes, DecodeOptions(thumbnailSize: PixelSize(width: 200, height: 100), scaleMode: .aspectFill))
        #expect((fill.width, fill.height) == (200, 100))
        guard let small = try AVIFTest.corpusFile("avif/draw_points_idat.avif") else { return }  // 33x11
        let big = try AVIFTest.decode(small, DecodeOptions(thumbnailSize: PixelSize(width: 330, height: 110)))
        #expect((big.width, big.height) == (33, 11))
        let up = try AVIFTest.decode(small, DecodeOptions(thumbnailSize: PixelSize(width: 330, height: 110), allowUpscale: true))
        #expect((up.width, up.height) == (330, 110))
    }

    /// RGBA16 only when asked and the source has more than 8 bits; the 8-bit output of a 10-bit file is its
    /// 16-bit output rounded (within 1).
    @Test(.requiresCorpus) func highBitDepthOutput() throws {
        guard let ten = try AVIFTest.corpusFile("avif/fox.profile0.10bpc.yuv420.odd-width.odd-height.avif"),
              let eight = try AVIFTest.corpusFile("avif/kodim03_yuv420_8bpc.avif") else { return }
        let wide = try AVIFTest.decode(ten, DecodeOptions(highBitDepth: true))
        let narrow = try AVIFTest.decode(ten)
        #expect(wide.pixelFormat == .rgba16 && narrow.pixelFormat == .rgba8)
        let rounded = Raster(width: wide.width, height: wide.height,
                             samples: Raster(wide).samples.map { UInt16((Int($0) * 255 + 32767) / 65535) })
        #expect(Difference(Raster(narrow), rounded).maxChannel <= 1)
        #expect(try AVIFTest.decode(eight, DecodeOptions(highBitDepth: true)).pixelFormat == .rgba8)
    }

    /// One decoder thread or all cores: the same pixels.
    @Test(.requiresCorpus) func threads() throws {
        guard let bytes = try AVIFTest.corpusFile("avif/fox.profile0.8bpc.yuv420.avif") else { return }
        #expect(try AVIFTest.decode(bytes, DecodeOptions(threads: 1)).bytes == AVIFTest.decode(bytes).bytes)
    }

    /// IP_CODER_THREAD_SAFE: decodes and encodes from several threads at once give the same results as alone.
    @Test(.requiresCorpus) func concurrentCalls() throws {
        let corpus = try Skip.unlessCorpus()
        let files = ["kodim03_yuv420_8bpc.avif", "star-10bpc-with-alpha.avifs", "clap_irot_imir_non_essential.avif",
                     "kimono.crop.avif"].map { corpus + "/avif/" + $0 }
        let inputs = try files.map { try TestFiles.read($0) }
        let expected = try inputs.map { try AVIFTest.decode($0).bytes }
        let coders = try AVIFTest.coders()
        let results = ResultBox(count: 8)
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            let ok = (try? coders.decode(data: inputs[i % 4]).bytes) == expected[i % 4]
            let encoded = (try? coders.encode(try Image(width: 16, height: 16), format: "avif", options: EncodeOptions(speed: 10))) != nil
            results.set(i, ok && encoded)
        }
        #expect(results.values.allSatisfy { $0 })
    }
}

/// `@unchecked Sendable`: each index is written by exactly one iteration, and read after concurrentPerform returns.
final class ResultBox: @unchecked Sendable {
    private(set) var values: [Bool]
    private let lock = NSLock()
    init(count: Int) { values = Array(repeating: false, count: count) }
    func set(_ index: Int, _ value: Bool) { lock.lock(); values[index] = value; lock.unlock() }
}
