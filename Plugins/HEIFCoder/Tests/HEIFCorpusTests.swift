import Foundation
import PipelineHost
import TestSupport
import Testing

/// The shared third-party corpus (../shared/corpus), driven by its manifest.
///
/// Runtime: sources above 2 megapixels are decoded at a 256-pixel box (they all carry an embedded thumbnail, so the
/// decode is cheap); everything else at full size. The 200-megapixel file is only decoded through its thumbnail.
@Suite struct HEIFCorpusTests {
    static let largePixels = 2_000_000

    static func rows(_ test: String) throws -> (corpus: String, rows: [CorpusManifestRow])? {
        guard let corpus = try HEIFTest.corpus(test) else { return nil }
        return (corpus, try CorpusManifest.testRows(in: corpus).filter { $0.format == "heif" })
    }

    /// Valid files: probe gives the manifest's size (transforms applied), top-level image count, alpha and bit
    /// depth; every page decodes at the manifest size (or, for large sources, at the box the host's fit gives).
    @Test(.requiresCorpus) func validFilesMatchTheManifest() throws {
        guard let (corpus, rows) = try Self.rows("validFilesMatchTheManifest") else { return }
        let valid = rows.filter { $0.outcome == "ok" && $0.path.hasPrefix("heif/") }
        #expect(valid.count >= 20)
        var checked = 0
        for row in valid {
            let bytes = try TestFiles.read(corpus + "/" + row.path)
            guard try HEIFTest.host().coders.coder(forData: bytes) != nil else {
                // libheif-avif32.heif carries the avif brand: the AVIF coder's (see HEIFSniffTests).
                #expect(row.details.contains("coded(ispe) 32x32") && row.path.hasSuffix("avif32.heif"), "\(row.path) not claimed")
                continue
            }
            let info = try HEIFTest.probe(bytes)
            #expect((info.width, info.height) == (row.width, row.height), "\(row.path) size")
            #expect(info.pageCount == row.framesOrPages, "\(row.path) pages")
            #expect(info.frameCount == 1 && info.loopCount == nil, "\(row.path) frames")
            #expect(info.hasAlpha == row.hasAlpha, "\(row.path) alpha")
            #expect(info.bitDepth == row.bitDepth, "\(row.path) bit depth")
            #expect(info.format == "heif" && info.coderID == HEIFTest.coderID)
            let large = info.width * info.height > Self.largePixels
            for page in 0..<info.pageCount {
                let options = DecodeOptions(thumbnailSize: large ? PixelSize(width: 256, height: 256) : nil, pageIndex: page)
                let image = try HEIFTest.decode(bytes, options)
                if large {
                    #expect(max(image.width, image.height) == 256, "\(row.path) page \(page): \(image.width)x\(image.height)")
                } else if page == 0 {
                    #expect((image.width, image.height) == (row.width, row.height), "\(row.path) decode")
                }
                if page == 0 { #expect((image.alphaMode != .none) == row.hasAlpha, "\(row.path) alpha mode") }
            }
            checked += 1
        }
        print("corpus: \(checked) valid HEIF files probed and decoded (all pages)")
    }

    /// Files libheif 1.15 cannot read (JPEG-, VVC- and uncompressed-coded items, low-overhead 'mini' files):
    /// a clean UNSUPPORTED naming the codec, from probe and decode alike.
    @Test(.requiresCorpus) func filesTheReferenceToolFailsOnAreUnsupported() throws {
        guard let (corpus, rows) = try Self.rows("filesTheReferenceToolFailsOnAreUnsupported") else { return }
        let failing = rows.filter { $0.outcome == "reference-tool-fails" }
        #expect(failing.count >= 4)
        for row in failing {
            let bytes = try TestFiles.read(corpus + "/" + row.path)
            for operation in ["probe", "decode"] {
                do {
                    if operation == "probe" { _ = try HEIFTest.probe(bytes) } else { _ = try HEIFTest.decode(bytes) }
                    Issue.record("\(row.path): \(operation) succeeded")
                } catch {
                    #expect(error.pluginStatus == .unsupported, "\(row.path) \(operation): \(error)")
                    print("\(row.path) \(operation): \(error)")
                }
            }
        }
    }

    /// Broken and hostile files: an error, never a crash. Truncated ones say TRUNCATED; the 200-megapixel one is
    /// refused by a 64-megapixel limit, yet still gives a thumbnail through its embedded 384x512 one.
    @Test(.requiresCorpus) func badFilesFailCleanly() throws {
        guard let (corpus, rows) = try Self.rows("badFilesFailCleanly") else { return }
        let bad = rows.filter { $0.path.hasPrefix("bad/") }
        #expect(bad.count >= 8)
        let limits = DecodeLimits(maxPixels: 64_000_000)
        for row in bad {
            let bytes = try TestFiles.read(corpus + "/" + row.path)
            do {
                let image = try HEIFTest.decode(bytes, DecodeOptions(limits: limits))
                Issue.record("\(row.path): decoded \(image.width)x\(image.height)")
            } catch {
                print("\(row.path): \(error)")
                if row.outcome == "limit" { #expect(error.pluginStatus == .limitExceeded, "\(row.path): \(error)") }
                if row.path.contains("truncated") { #expect(error.pluginStatus == .truncated, "\(row.path): \(error)") }
                #expect(error.pluginStatus != .internalError, "\(row.path): \(error)")
            }
        }
        let bomb = try TestFiles.read(corpus + "/bad/pillow-200MP.heic")
        let info = try HEIFTest.probe(bomb, DecodeOptions(thumbnailSize: PixelSize(width: 256, height: 256), limits: limits))
        #expect((info.width, info.height) == (12240, 16320))
        #expect(info.details.contains("at 256x256: embedded thumbnail 384x512"), "\(info.details)")
        let thumbnail = try HEIFTest.decode(bomb, DecodeOptions(thumbnailSize: PixelSize(width: 256, height: 256), limits: limits))
        #expect((thumbnail.width, thumbnail.height) == (192, 256))
    }

    /// Every truncation of a small valid file fails cleanly (or, very near the end, may still decode).
    @Test(.requiresCorpus) func everyTruncationFailsCleanly() throws {
        guard let corpus = try HEIFTest.corpus("everyTruncationFailsCleanly") else { return }
        let bytes = try TestFiles.read(corpus + "/heif/libheif-colors-with-alpha-thumbnail.heic")
        var statuses: [String: Int] = [:]
        for length in stride(from: 1, to: bytes.count, by: 7) {
            do {
                _ = try HEIFTest.decode(Array(bytes.prefix(length)))
                statuses["decoded", default: 0] += 1
            } catch {
                statuses["\(error.pluginStatus.map { "\($0)" } ?? "\(error)")", default: 0] += 1
                #expect(error.pluginStatus != .internalError, "\(length) bytes: \(error)")
            }
        }
        print("truncations of a \(bytes.count)-byte file: \(statuses.sorted { $0.key < $1.key })")
    }
}
