import Foundation
import PipelineHost
import TestSupport
import Testing

/// Pixels against avifdec 0.11.1 (libavif-bin), which links the same libavif and converts YUV to RGB with the same
/// defaults (automatic chroma upsampling through libyuv). avifdec applies no clap/irot/imir, so these decodes use
/// `ignoreOrientation` (which skips irot/imir) and compare clap files inside the crop rectangle.
/// Tolerance: every channel within 1 (at 8 bits, and at 16 bits for `highBitDepth`). Measured: 0, except 1 for the
/// 8-bit 4:0:0 files, whose reference is range-expanded here (see `rawLimitedLuma`).
@Suite struct AVIFReferenceTests {
    struct Case: CustomStringConvertible {
        let file: String
        var highBitDepth = false
        var strict = true
        var frame = 0
        /// avifdec writes 8-bit 4:0:0 without alpha as a gray PNG of the raw luma, without expanding limited range
        /// (apps/shared/avifpng.c, "monochrome8bit"); the test expands it as libavif's avifLimitedToFullY does.
        var rawLimitedLuma = false
        var description: String { "\(file)\(highBitDepth ? " @16" : "")\(frame > 0 ? " frame \(frame)" : "")" }
    }

    static let cases: [Case] = [
        Case(file: "kodim03_yuv420_8bpc.avif"),  // 4:2:0, full range
        Case(file: "Monochrome.avif", rawLimitedLuma: true),  // 4:0:0, limited range
        Case(file: "fox.profile0.8bpc.yuv420.monochrome.avif", rawLimitedLuma: true),
        Case(file: "fox.profile1.8bpc.yuv444.odd-height.avif"),
        Case(file: "fox.profile0.8bpc.yuv420.avif"),
        Case(file: "fox.profile0.10bpc.yuv420.odd-width.odd-height.avif", highBitDepth: true),
        Case(file: "fox.profile0.10bpc.yuv420.odd-width.odd-height.avif"),  // 10-bit source to 8-bit output
        Case(file: "fox.profile2.12bpc.yuv422.odd-width.avif", highBitDepth: true),
        Case(file: "fox.profile2.10bpc.yuv422.monochrome.odd-width.avif", highBitDepth: true),
        Case(file: "fox.profile2.12bpc.yuv444.avif"),
        Case(file: "colors_hdr_p3.avif", highBitDepth: true),
        Case(file: "circle_custom_properties.avif"),  // alpha
        Case(file: "draw_points_idat.avif"),  // alpha, odd size
        Case(file: "abc_color_irot_alpha_irot.avif"),  // alpha + irot (ignored here)
        Case(file: "kimono.rotate90.avif"),
        Case(file: "white_1x1.avif"),
        Case(file: "extended_pixi.avif"),
        Case(file: "sofa_grid1x5_420.avif"),  // grid
        Case(file: "paris_icc_exif_xmp.avif"),
        Case(file: "kimono.crop.avif", strict: false),  // clap at an odd offset: strict avifdec refuses it
        Case(file: "libheif-example.avif", strict: false),  // no pixi: strict avifdec refuses it
        Case(file: "clap_irot_imir_non_essential.avif", highBitDepth: true),  // 10-bit, clap + irot + imir, alpha
        Case(file: "star-10bpc-with-alpha.avifs", highBitDepth: true, frame: 3),
        Case(file: "star-12bpc.avifs", highBitDepth: true),
        Case(file: "colors-animated-8bpc-alpha-exif-xmp.avif", frame: 2),
    ]

    @Test(arguments: cases) func matchesAvifdec(_ testCase: Case) throws {
        guard ReferenceTools.available else { try Skip.because(ReferenceTools.missingMessage, bootstrapProvides: true) }
        let corpus = try Skip.unlessCorpus()
        let path = corpus + "/avif/" + testCase.file
        let bytes = try TestFiles.read(path)
        // avifdec applies no colour profile: the coder's own pixels (.keep) are compared, not the host's sRGB.
        let options = DecodeOptions(frameIndex: testCase.frame, highBitDepth: testCase.highBitDepth, ignoreOrientation: true,
                                    colorOutput: .keep)
        let image = try AVIFTest.decode(bytes, options)
        let info = try AVIFTest.probe(bytes)
        let sixteen = testCase.highBitDepth && info.bitDepth > 8
        #expect(image.pixelFormat == (sixteen ? .rgba16 : .rgba8))
        var reference = try ReferenceTools.decode(path, depth: sixteen ? 16 : 8, strict: testCase.strict, index: testCase.frame)
        if testCase.rawLimitedLuma { reference = reference.expandingLimitedRange() }
        // avifdec writes the whole coded image; the plugin crops to the clean aperture even without orientation.
        if let crop = Self.clap(in: info.details) {
            reference = reference.cropped(x: crop.x, y: crop.y, width: crop.width, height: crop.height)
        }
        guard (reference.width, reference.height) == (image.width, image.height) else {
            Issue.record("\(testCase): size \(image.width)x\(image.height), avifdec \(reference.width)x\(reference.height)")
            return
        }
        let difference = Difference(Raster(image), reference)
        #expect(difference.maxChannel <= 1, "\(testCase): \(difference)")
        #expect(image.alphaMode == (info.hasAlpha ? .straight : .none), "\(testCase)")
        print("avifdec \(testCase): \(image.width)x\(image.height), \(difference)")
    }

    /// "clap 385x330+272+39" from probe details.
    static func clap(in details: String) -> (x: Int, y: Int, width: Int, height: Int)? {
        guard let range = details.range(of: "clap ") else { return nil }
        let text = details[range.upperBound...].prefix { $0 != "," }
        let numbers = text.split(whereSeparator: { $0 == "x" || $0 == "+" }).compactMap { Int($0) }
        return numbers.count == 4 ? (numbers[2], numbers[3], numbers[0], numbers[1]) : nil
    }

    /// A file written premultiplied (avifenc --premultiply) decodes premultiplied and says so; un-premultiplied by
    /// avifdec and premultiplied again here, the colours agree within 1 (rounding of the two conversions).
    @Test func premultipliedAlphaStaysPremultiplied() throws {
        guard ReferenceTools.available else { try Skip.because(ReferenceTools.missingMessage, bootstrapProvides: true) }
        let folder = try TestPaths.temporaryDirectory("avif-prem")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pattern = Raster.pattern(width: 37, height: 21, alpha: true)
        let bytes = try ReferenceTools.encode(pattern, ["-l", "--premultiply"])
        let path = folder + "/prem.avif"
        try TestFiles.write(bytes, to: path)
        let image = try AVIFTest.decode(bytes)
        #expect(image.alphaMode == .premultiplied)
        #expect(try AVIFTest.probe(bytes).details.contains("premultiplied alpha"))
        let reference = try ReferenceTools.decode(path, depth: 8).premultiplied(maxValue: 255)
        let difference = Difference(Raster(image), reference)
        #expect(difference.maxChannel <= 1, "\(difference)")
        // Every colour channel is at most its alpha, as IP_ALPHA_PREMULTIPLIED promises.
        let samples = Raster(image).samples
        #expect(stride(from: 0, to: samples.count, by: 4).allSatisfy { i in (0..<3).allSatisfy { samples[i + $0] <= samples[i + 3] } })
    }
}
