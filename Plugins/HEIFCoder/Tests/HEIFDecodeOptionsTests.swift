import Foundation
import PipelineHost
import TestSupport
import Testing

/// Options and errors: orientation, bit depth, limits, pages, frames, concurrency.
@Suite struct HEIFDecodeOptionsTests {
    static func corpusFile(_ name: String, _ test: String) throws -> [UInt8]? {
        guard let corpus = try HEIFTest.corpus(test) else { return nil }
        return try TestFiles.read(corpus + "/heif/" + name)
    }

    /// libheif applies irot and clap by default; IP_DECODE_IGNORE_ORIENTATION drops them all (1.15 cannot drop
    /// only the rotation), giving the coded size.
    @Test(.requiresCorpus) func ignoringOrientationGivesTheCodedSize() throws {
        guard let clapped = try Self.corpusFile("libheif-hevc32.heif", "ignoringOrientation") else { return }
        #expect(try HEIFTest.decode(clapped).width == 32)
        let raw = try HEIFTest.decode(clapped, DecodeOptions(ignoreOrientation: true))
        #expect((raw.width, raw.height) == (64, 64))
        let info = try HEIFTest.probe(clapped)
        #expect((info.width, info.height) == (32, 32) && info.details.contains("coded 64x64"), "\(info.details)")
    }

    @Test(.requiresCorpus) func highBitDepthOnlyForDeepSources() throws {
        guard let deep = try Self.corpusFile("pillow-RGB_12__128x128.heif", "highBitDepth"),
              let plain = try Self.corpusFile("pillow-RGB_8__128x128.heif", "highBitDepth") else { return }
        let wide = try HEIFTest.decode(deep, DecodeOptions(highBitDepth: true))
        #expect(wide.pixelFormat == .rgba16 && wide.alphaMode == .none)
        #expect(wide.pixel(x: 0, y: 0).a == 65535, "opaque alpha is full range")
        #expect(try HEIFTest.decode(deep).pixelFormat == .rgba8)
        #expect(try HEIFTest.decode(plain, DecodeOptions(highBitDepth: true)).pixelFormat == .rgba8)
    }

    @Test(.requiresCorpus) func limitsAreCheckedBeforeDecoding() throws {
        guard let bytes = try Self.corpusFile("libheif-rainbow-451x461.heic", "limits") else { return }
        for limits in [DecodeLimits(maxPixels: 451 * 461 - 1), DecodeLimits(maxDimension: 460), DecodeLimits(maxInputBytes: 100)] {
            do {
                _ = try HEIFTest.decode(bytes, DecodeOptions(limits: limits))
                Issue.record("decoded despite \(limits)")
            } catch {
                #expect(error.pluginStatus == .limitExceeded, "\(limits): \(error)")
            }
        }
        // The coded size (452x462, before clap) is what libheif allocates: it counts too.
        #expect(throws: (any Error).self) { try HEIFTest.decode(bytes, DecodeOptions(limits: DecodeLimits(maxPixels: 451 * 461))) }
        #expect(try HEIFTest.decode(bytes, DecodeOptions(limits: DecodeLimits(maxPixels: 452 * 462))).width == 451)
    }

    @Test(.requiresCorpus) func framesBeyondTheFirstDoNotExist() throws {
        guard let bytes = try Self.corpusFile("libheif-colors-no-alpha.heic", "frames") else { return }
        do {
            _ = try HEIFTest.decode(bytes, DecodeOptions(frameIndex: 1))
            Issue.record("frame 1 decoded")
        } catch {
            #expect(error.pluginStatus == .notFound, "\(error)")
        }
    }

    @Test(.requiresCorpus) func secondTopLevelImageIsPageOne() throws {
        guard let bytes = try Self.corpusFile("pillow-empty_icc.heic", "pages") else { return }
        let info = try HEIFTest.probe(bytes)
        #expect(info.pageCount == 2 && info.details.contains("page 0 = primary (#1 in file)"), "\(info.details)")
        let second = try HEIFTest.decode(bytes, DecodeOptions(pageIndex: 1))
        #expect((second.width, second.height, second.index) == (932, 1044, 1))
        #expect(try HEIFTest.probe(bytes, DecodeOptions(pageIndex: 1)).width == 932)
    }

    @Test(.requiresCorpus) func metadataIsListedInDetails() throws {
        guard let bytes = try Self.corpusFile("pillow-L_exif_xmp_iptc.heic", "details") else { return }
        let details = try HEIFTest.probe(bytes).details
        #expect(details.contains("Exif") && details.contains("XMP"), "\(details)")
    }

    @Test func emptyAndGarbageInputFailCleanly() throws {
        #expect(throws: (any Error).self) { try HEIFTest.decode([]) }
        // A valid-looking ftyp with nothing after it.
        let header = HEIFSniffTests.fileType(major: "heic", compatible: ["mif1", "heic"])
        do {
            _ = try HEIFTest.decode(header)
            Issue.record("decoded a bare header")
        } catch {
            #expect(error.pluginStatus == .invalidData || error.pluginStatus == .truncated, "\(error)")
        }
    }

    /// Thread-safe: the same and different files decoded from several threads at once give identical pixels.
    @Test(.requiresCorpus) func concurrentDecodesAgree() async throws {
        guard let a = try Self.corpusFile("libheif-rainbow-451x461.heic", "concurrency"),
              let b = try Self.corpusFile("pillow-RGBA_10__128x128.heif", "concurrency") else { return }
        let expected = [try HEIFTest.decode(a).bytes, try HEIFTest.decode(b).bytes]
        try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for task in 0..<16 {
                group.addTask { (task % 2, try HEIFTest.decode(task % 2 == 0 ? a : b).bytes) }
            }
            for try await (which, bytes) in group { #expect(bytes == expected[which]) }
        }
    }
}
