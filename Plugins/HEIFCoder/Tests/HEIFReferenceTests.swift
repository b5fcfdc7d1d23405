import Foundation
import PipelineHost
import TestSupport
import Testing

/// Pixels against heif-convert (libheif-examples 1.15, the same library) for the same files.
///
/// Tolerance: the same libheif does the decoding and the YCbCr → RGB conversion on both sides, so 8-bit output is
/// expected to match exactly; 1 is allowed for >8-bit sources decoded to RGBA8, which heif-convert writes as a
/// 16-bit PNG that ImageMagick then rounds to 8 bits, where libheif rounds 10/12 → 8 bits itself.
/// RGBA16 output: heif-convert 1.15 writes a 10/12-bit sample v as `v << (16 - bits)`, while the ABI asks for the
/// full 0...65535 range and the coder widens by bit replication, `v << (16 - bits) | v >> (2 * bits - 16)`. The
/// reference is widened the same way before comparing, and must then match exactly.
@Suite struct HEIFReferenceTests {
    struct Case: Sendable, CustomStringConvertible {
        let file: String
        let why: String
        var highBitDepth = false
        var description: String { "\(file) (\(why))" }
    }

    static let cases: [Case] = [
        Case(file: "libheif-colors-no-alpha.heic", why: "plain 8-bit RGB"),
        Case(file: "libheif-with-alpha-512x512.heic", why: "alpha, ICC"),
        Case(file: "pillow-RGBA_8__29x100.heif", why: "alpha, odd width"),
        Case(file: "libheif-rainbow-451x461.heic", why: "odd size by clap"),
        Case(file: "libheif-hevc32.heif", why: "clap crop 64 -> 32"),
        Case(file: "pillow-L_8__29x100.heif", why: "grey, clap"),
        Case(file: "pillow-LA_8__128x128.heif", why: "grey + alpha"),
        Case(file: "pillow-RGB_8_chroma444.heif", why: "4:4:4"),
        Case(file: "pillow-RGB_10__29x100.heif", why: "10-bit as RGBA8"),
        Case(file: "pillow-RGB_10__29x100.heif", why: "10-bit as RGBA16", highBitDepth: true),
        Case(file: "pillow-RGBA_10__128x128.heif", why: "10-bit alpha as RGBA16", highBitDepth: true),
        Case(file: "pillow-L_10__128x128.heif", why: "10-bit grey as RGBA16", highBitDepth: true),
        Case(file: "pillow-RGB_12__128x128.heif", why: "12-bit as RGBA16", highBitDepth: true),
        Case(file: "pillow-RGBA_12__29x100.heif", why: "12-bit alpha as RGBA8"),
        Case(file: "pillow-arrow.heic", why: "grid of tiles, irot (coded 4032x3024)"),
    ]

    @Test(arguments: cases) func matchesHeifConvert(_ test: Case) throws {
        guard let corpus = try HEIFTest.corpus("matchesHeifConvert"), try HEIFTest.hasReferenceTools("matchesHeifConvert") else { return }
        let path = corpus + "/heif/" + test.file
        // heif-convert applies no colour profile: the coder's own pixels (.keep) are compared, not the host's sRGB.
        let image = try HEIFTest.decode(try TestFiles.read(path), DecodeOptions(highBitDepth: test.highBitDepth, colorOutput: .keep))
        let bits = try HEIFTest.probe(try TestFiles.read(path)).bitDepth
        var reference = try #require(try HEIFTest.reference(path, depth16: test.highBitDepth).first)
        if test.highBitDepth {
            #expect(image.pixelFormat == .rgba16 && bits > 8, "\(test): \(image.pixelFormat), \(bits) bits")
            reference = reference.widened(fromBits: bits)
        }
        #expect((image.width, image.height) == (reference.width, reference.height), "\(test)")
        guard (image.width, image.height) == (reference.width, reference.height) else { return }
        let difference = SampleDifference(image, reference)
        let tolerance = !test.highBitDepth && bits > 8 ? 1 : 0
        #expect(difference.maxChannel <= tolerance, "\(test): \(difference)")
        print("\(test): \(image.width)x\(image.height) \(image.pixelFormat) \(image.alphaMode): \(difference)")
    }

    /// Pages are the primary image first, then the others in file order; heif-convert writes them in file order.
    /// zPug_3 has its primary image second in the file: page 0 = out-2, page 1 = out-1, page 2 = out-3.
    @Test(.requiresCorpus) func pagesMatchHeifConvertImages() throws {
        guard let corpus = try HEIFTest.corpus("pages"), try HEIFTest.hasReferenceTools("pages") else { return }
        let path = corpus + "/heif/pillow-zPug_3.heic"
        let bytes = try TestFiles.read(path)
        let references = try HEIFTest.reference(path)
        try #require(references.count == 3)
        #expect(try HEIFTest.probe(bytes).pageCount == 3)
        for (page, fileIndex) in [(0, 1), (1, 0), (2, 2)] {
            let image = try HEIFTest.decode(bytes, DecodeOptions(pageIndex: page, colorOutput: .keep))
            let reference = references[fileIndex]
            #expect(image.index == page)
            try #require((image.width, image.height) == (reference.width, reference.height), "page \(page)")
            let difference = SampleDifference(image, reference)
            #expect(difference.maxChannel == 0, "page \(page): \(difference)")
        }
        #expect(throws: (any Error).self) { try HEIFTest.decode(bytes, DecodeOptions(pageIndex: 3)) }
        do {
            _ = try HEIFTest.decode(bytes, DecodeOptions(pageIndex: 3))
        } catch {
            #expect(error.pluginStatus == .notFound, "\(error)")
        }
    }
}
