import Foundation
import PipelineHost
import TestSupport
import Testing

/// The coder's own libde265 decoder (HEVCDecoder), which replaces libheif 1.15's one-thread decoder.
///
/// What must hold: the thread count changes the speed, never a pixel; and the pixels are exactly what libheif's
/// own decoder gives (heif-convert uses it), so colour handling (the nclx attached from the bitstream) is the same.
/// The corpus comparisons in HEIFReferenceTests (alpha, 4:4:4, 10/12-bit, grey, grids) run through it as well.
@Suite struct HEIFThreadedDecodeTests {
    /// A 1280x720 picture encoded here by x265 (through the coder): x265 writes wavefront (WPP) rows by default,
    /// the bitstream shape libde265 spreads over worker threads, and 720 rows make 12 rows of 64x64 CTBs.
    static let encoded: Result<[UInt8], any Error> = Result {
        let picture = try HEIFEncodeTests.picture(width: 1280, height: 720, alpha: false)
        return try HEIFTest.host().coders.encode(picture, format: "heic", options: EncodeOptions(quality: 70, speed: 9))
    }

    @Test func threadCountNeverChangesPixels() throws {
        guard try HEIFEncodeTests.canEncode() else { return }
        let bytes = try Self.encoded.get()
        let single = try HEIFTest.decode(bytes, DecodeOptions(threads: 1))
        #expect((single.width, single.height) == (1280, 720))
        for threads in [0, 2, 3, 8] {
            let image = try HEIFTest.decode(bytes, DecodeOptions(threads: threads))
            #expect(image.bytes == single.bytes, "threads \(threads) differs from 1 thread")
        }
    }

    @Test func pixelsEqualLibheifsOwnDecoder() throws {
        guard try HEIFEncodeTests.canEncode(), try HEIFTest.hasReferenceTools("pixelsEqualLibheifsOwnDecoder") else { return }
        let folder = try TestPaths.temporaryDirectory("heif-threads")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/wpp.heic"
        try TestFiles.write(try Self.encoded.get(), to: path)
        let image = try HEIFTest.decode(try TestFiles.read(path), DecodeOptions(threads: 4))
        let reference = try #require(try HEIFTest.reference(path).first)
        #expect((image.width, image.height) == (reference.width, reference.height))
        let difference = SampleDifference(image, reference)
        #expect(difference.maxChannel == 0, "\(difference)")
    }

    /// A bitstream cut inside a NAL unit is an error from the decoder, not a crash or a partial picture.
    @Test func cutBitstreamIsAnError() throws {
        guard try HEIFEncodeTests.canEncode() else { return }
        let bytes = try Self.encoded.get()
        let cut = Array(bytes.prefix(bytes.count - bytes.count / 3))
        #expect(throws: PipelineError.self) { _ = try HEIFTest.decode(cut, DecodeOptions(threads: 2)) }
    }
}
