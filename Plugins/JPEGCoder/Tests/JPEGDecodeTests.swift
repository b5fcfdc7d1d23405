import Foundation
import PipelineHost
import Testing
import TestSupport

/// Decoding against libjpeg-turbo's own `djpeg` (same library, same IDCT and upsampling: the output must be
/// identical) and against ImageMagick for the files only it writes.
@Suite("JPEG decode")
struct JPEGDecodeTests {
    /// An odd size, so that partial MCUs at the right and bottom edges are exercised.
    static let scene = Scene.make(width: 101, height: 67)

    @Test("cjpeg variants decode exactly as djpeg does", arguments: [
        "", "-progressive", "-arithmetic", "-progressive -arithmetic", "-sample 1x1", "-sample 2x1",
        "-restart 1", "-quality 40 -optimize", "-quality 100 -sample 1x1 -progressive",
    ])
    func matchesDjpeg(_ arguments: String) throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let jpeg = try Tools.cjpeg(Self.scene, arguments)
        let decoded = try JPEGTesting.decodeRGB(jpeg)
        let reference = try Tools.djpeg(jpeg)
        let difference = Difference(decoded, reference)
        // Tolerance: none. The plugin and djpeg run the same libjpeg with the same settings (ISLOW IDCT, fancy upsampling).
        #expect(difference.sameSize && difference.maximum == 0, "cjpeg \(arguments): \(difference)")
    }

    @Test("grayscale decodes to equal R, G and B, exactly as djpeg")
    func gray() throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let jpeg = try Tools.cjpeg(Self.scene, "-grayscale")
        let coders = try JPEGTesting.coders()
        #expect(try coders.probe(data: jpeg).details.hasPrefix("baseline, gray, 8-bit"))
        let reference = try Tools.djpeg(jpeg)
        #expect(reference.channels == 1)
        let decoded = try JPEGTesting.decodeRGB(jpeg, coders: coders)
        let difference = Difference(decoded, reference)
        #expect(difference.sameSize && difference.maximum == 0, "\(difference)")
    }

    @Test("ImageMagick's baseline and progressive files decode as ImageMagick decodes them (tolerance 1)",
          arguments: ["-quality 92", "-quality 80 -interlace JPEG", "-quality 70 -sampling-factor 2x1"])
    func imageMagick(_ arguments: String) throws {
        guard Tools.hasImageMagick else { try Skip.because(Tools.imageMagickMissing, bootstrapProvides: true) }
        let jpeg = try Tools.convertToJPEG(Self.scene, arguments)
        let difference = Difference(try JPEGTesting.decodeRGB(jpeg), try Tools.convertToRGB(jpeg))
        // Tolerance 1: ImageMagick runs the same libjpeg, then scales samples through its 16-bit quantum and back.
        #expect(difference.sameSize && difference.maximum <= 1, "convert \(arguments): \(difference)")
    }

    @Test("ImageMagick's CMYK (YCCK, Adobe, inverted) decodes like `convert -colorspace sRGB` (tolerance 2)")
    func imageMagickCMYK() throws {
        guard Tools.hasImageMagick else { try Skip.because(Tools.imageMagickMissing, bootstrapProvides: true) }
        let jpeg = try Tools.convertToJPEG(Self.scene, "-colorspace CMYK -quality 95")
        let info = try JPEGTesting.coders().probe(data: jpeg)
        #expect(info.details.contains("YCCK (Adobe, inverted)"), "\(info.details)")
        let difference = Difference(try JPEGTesting.decodeRGB(jpeg), try Tools.convertToRGB(jpeg, "-colorspace sRGB"))
        // Tolerance 2: both use R = (1 - C)(1 - K) but round differently (8-bit here, 16-bit quantum there).
        #expect(difference.sameSize && difference.maximum <= 2, "\(difference)")
    }

    @Test("plain CMYK decodes with and without the Adobe marker (inverted and straight samples)", arguments: [true, false])
    func cmyk(adobe: Bool) throws {
        guard Tools.hasCC else { try Skip.because("cc is not installed", bootstrapProvides: true) }
        let (cmyk, expected) = CMYKWriter.pattern(width: 48, height: 40)
        let jpeg = try CMYKWriter.jpeg(width: 48, height: 40, cmyk: cmyk, adobe: adobe)
        let info = try JPEGTesting.coders().probe(data: jpeg)
        #expect(info.details.contains(adobe ? "CMYK (Adobe, inverted)" : "CMYK"), "\(info.details)")
        let difference = Difference(try JPEGTesting.decodeRGB(jpeg), expected)
        // Tolerance: JPEG at quality 100 of a smooth pattern, then the product of two channels.
        #expect(difference.sameSize && difference.maximum <= 4 && difference.mean < 1, "\(difference)")
    }

    @Test("a 12-bit JPEG is probed (bit depth 12) but decoding is .unsupported")
    func twelveBit() throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        var jpeg = try Tools.cjpeg(Self.scene, "-optimize")
        // This 8-bit libjpeg-turbo cannot write 12-bit files: patch the frame header to SOF1 with precision 12.
        let sof = try #require(JPEGMarkers.frameHeader(in: jpeg))
        jpeg[sof + 1] = 0xC1
        jpeg[sof + 4] = 12
        let coders = try JPEGTesting.coders()
        let info = try coders.probe(data: jpeg)
        #expect(info.bitDepth == 12)
        #expect((info.width, info.height) == (101, 67))
        let error = #expect(throws: PipelineError.self) { _ = try coders.decode(data: jpeg) }
        #expect(error?.status == .unsupported)
        #expect("\(error.map { "\($0)" } ?? "")".contains("12-bit"))
    }

    @Test("probe reports size, depth, no alpha, one frame, and the JPEG's facts")
    func probe() throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let coders = try JPEGTesting.coders()
        let info = try coders.probe(data: try Tools.cjpeg(Self.scene, "-progressive"))
        #expect(info.format == "jpeg")
        #expect(info.coderID == JPEGTesting.coderID)
        #expect((info.width, info.height) == (101, 67))
        #expect(info.bitDepth == 8)
        #expect(!info.hasAlpha)
        #expect(info.frameCount == 1)
        #expect(info.pageCount == 1)
        #expect(info.loopCount == nil)
        #expect(info.details == "progressive, YCbCr 4:2:0, 8-bit, JFIF")
    }

    @Test("an ICC profile split over APP2 segments is reassembled and reported; an unreadable one leaves the pixels as sRGB")
    func iccProfile() throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let jpeg = try Tools.cjpeg(Self.scene)
        // Two APP2 "ICC_PROFILE" chunks of 100 and 60 profile bytes (content is not parsed, only counted).
        func chunk(_ sequence: UInt8, _ size: Int) -> [UInt8] {
            let payload = Array("ICC_PROFILE".utf8) + [0, sequence, 2] + [UInt8](repeating: 0x41, count: size)
            return [0xFF, 0xE2, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        let tagged = Array(jpeg[0..<2]) + chunk(1, 100) + chunk(2, 60) + Array(jpeg[2...])
        let coders = try JPEGTesting.coders()
        let info = try coders.probe(data: tagged)
        #expect(info.details.contains("ICC profile 160 bytes"))
        #expect(info.color?.iccProfile == [UInt8](repeating: 0x41, count: 160))
        // A missing segment makes the profile unusable: none is reported.
        let incomplete = Array(jpeg[0..<2]) + chunk(2, 60) + Array(jpeg[2...])
        #expect(try coders.probe(data: incomplete).color == nil)
        #expect(Difference(try JPEGTesting.decodeRGB(tagged, coders: coders), try JPEGTesting.decodeRGB(jpeg, coders: coders)).maximum == 0)
    }

    @Test("page and frame indexes past the first are .notFound")
    func pagesAndFrames() throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let jpeg = try Tools.cjpeg(Self.scene)
        #expect(try JPEGTesting.decodeStatus(jpeg, DecodeOptions(pageIndex: 1)) == .notFound)
        #expect(try JPEGTesting.decodeStatus(jpeg, DecodeOptions(frameIndex: 1)) == .notFound)
    }
}
