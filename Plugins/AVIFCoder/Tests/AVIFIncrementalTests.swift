import Foundation
import PipelineHost
import TestSupport
import Testing

/// Incremental decoding through the host's IncrementalDecoder: growing prefixes of a file (every 1 % of it, plus
/// every byte around the end of the header) must give NEED_MORE (nil) and then previews, never an error, and the
/// final update must equal the one-shot decode exactly. Grid images preview row by row (cells not yet received are
/// transparent); layered files (corpus: tiger_3layer_1res, fruits_2layer_thumbsize) preview layer by layer.
@Suite struct AVIFIncrementalTests {
    /// What feeding a file's prefixes gave.
    struct Run {
        /// (prefix length, preview or nil for NEED_MORE) for every non-final update.
        var updates: [(length: Int, image: Image?)] = []
        var final: Image?
        var finalError: PipelineError?

        var previews: [(length: Int, image: Image)] { updates.compactMap { u in u.image.map { (u.length, $0) } } }
    }

    @Test func descriptorClaimsIncremental() throws {
        let coder = try #require(try AVIFTest.coders().coders.first { $0.descriptor.id == AVIFTest.coderID })
        #expect(coder.descriptor.capabilities.contains(.incremental))
    }

    // MARK: Grid images made by avifenc

    struct GridCase: CustomStringConvertible {
        let arguments: [String]
        let options: DecodeOptions
        let label: String
        var description: String { label }
    }

    static let gridCases: [GridCase] = [
        GridCase(arguments: ["--grid", "3x3"], options: DecodeOptions(), label: "3x3 grid, alpha"),
        GridCase(arguments: ["--grid", "2x3", "--irot", "1", "--imir", "0", "--crop", "6,4,300,250"],
                 options: DecodeOptions(), label: "2x3 grid, clap + irot 1 + imir 0"),
        GridCase(arguments: ["--grid", "3x3", "--irot", "2"], options: DecodeOptions(ignoreOrientation: true),
                 label: "3x3 grid, irot 2 ignored"),
        GridCase(arguments: ["--grid", "3x2", "-d", "10"], options: DecodeOptions(highBitDepth: true),
                 label: "3x2 grid, 10-bit to RGBA16"),
        GridCase(arguments: ["--grid", "1x3", "-y", "444", "-p"], options: DecodeOptions(),
                 label: "1x3 grid, 4:4:4, premultiplied"),
    ]

    @Test(arguments: gridCases) func gridPreviewsRowsThenEqualsDecode(_ testCase: GridCase) throws {
        guard ReferenceTools.available else { try Skip.because(ReferenceTools.missingMessage, bootstrapProvides: true) }
        let source = Raster.pattern(width: 384, height: 288, alpha: true, seed: 11, noise: 60)
        let bytes = try ReferenceTools.encode(source, testCase.arguments)
        let run = try Self.feed(bytes, options: testCase.options)
        let decoded = try AVIFTest.decode(bytes, testCase.options)
        try Self.expectFinalEqualsDecode(run, decoded, "\(testCase)")

        let previews = run.previews.filter { $0.length < bytes.count }
        #expect(previews.count >= 2, "\(testCase): \(previews.count) previews before the last byte")
        #expect(run.updates.first?.image == nil, "\(testCase): no preview from the first 1 %")
        var lastCovered = 0
        for (length, preview) in previews {
            #expect((preview.width, preview.height, preview.pixelFormat) == (decoded.width, decoded.height, decoded.pixelFormat))
            #expect(preview.alphaMode != .none, "\(testCase): a partial preview has transparent parts")
            let check = Self.compare(preview: preview, final: decoded)
            // Decoded pixels equal the final ones, except at the edge of the decoded rows, where the final image's
            // chroma upsampling also sees the next cell (libyuv's bilinear filter): at most 2 levels (8-bit scale).
            #expect(check.maxDifference <= (decoded.pixelFormat == .rgba16 ? 2 * 257 : 2),
                    "\(testCase) at \(length) bytes: \(check)")
            #expect(check.covered >= lastCovered, "\(testCase): previews never lose rows")
            lastCovered = check.covered
        }
        let first = try #require(previews.first)
        let coverage = Double(Self.compare(preview: first.image, final: decoded).covered) / Double(decoded.width * decoded.height)
        #expect(coverage < 1, "\(testCase): the first preview is partial")
        print("\(testCase): \(bytes.count) bytes, header complete by \(Self.headerEnd(bytes)), first preview at "
              + "\(first.length) (\(Int(coverage * 100)) % drawn), \(previews.count) previews")
    }

    /// A grid image's previews, decoded row for row, equal the final image; a plain (one-item) image has no preview
    /// before its last byte: AV1 has no partial decode of one frame.
    @Test func plainImageHasNoPreviewBeforeItsLastByte() throws {
        guard ReferenceTools.available else { try Skip.because(ReferenceTools.missingMessage, bootstrapProvides: true) }
        let bytes = try ReferenceTools.encode(Raster.pattern(width: 200, height: 150, alpha: true, seed: 3, noise: 60), [])
        let run = try Self.feed(bytes)
        #expect(run.previews.allSatisfy { $0.length == bytes.count }, "previews at \(run.previews.map(\.length))")
        try Self.expectFinalEqualsDecode(run, try AVIFTest.decode(bytes), "plain")
    }

    // MARK: Corpus: layered and grid files

    @Test(arguments: ["tiger_3layer_1res.avif", "fruits_2layer_thumbsize.avif", "sofa_grid1x5_420.avif"])
    func corpusPreviewsBeforeTheEnd(_ name: String) throws {
        guard let bytes = try AVIFTest.corpusFile("avif/" + name) else { return }
        let run = try Self.feed(bytes)
        let decoded = try AVIFTest.decode(bytes)
        try Self.expectFinalEqualsDecode(run, decoded, name)
        let previews = run.previews.filter { $0.length < bytes.count }
        let first = try #require(previews.first, "\(name): no preview before the last byte")
        for (_, preview) in previews {
            #expect((preview.width, preview.height) == (decoded.width, decoded.height))
        }
        // Distinct previews (a new layer or more rows), counted by content.
        var distinct: [[UInt8]] = []
        for (_, preview) in previews where distinct.last != preview.bytes { distinct.append(preview.bytes) }
        let psnr = ImageComparison.psnr(first.image, decoded, includingAlpha: false, step: 2)
        print("\(name): \(bytes.count) bytes, header by \(Self.headerEnd(bytes)), first preview at \(first.length) "
              + "(\(first.length * 100 / bytes.count) %), \(distinct.count) distinct previews, first preview "
              + String(format: "%.1f dB", psnr) + " against the final image")
        if name.contains("layer") {
            // The first layer is a complete, coarser picture of the whole image.
            #expect(first.image.alphaMode == decoded.alphaMode)
            #expect(psnr > 20, "\(name): first layer PSNR \(psnr)")
            #expect(first.length < bytes.count / 2, "\(name): first layer only at \(first.length) of \(bytes.count)")
        }
    }

    /// Every corpus file of avif/, at 25 prefixes: no error before the end for the files decode decodes, and the
    /// final image equals decode's (or the final update fails with decode's status).
    @Test(.requiresCorpus) func corpusNeverFailsOnAValidPrefix() throws {
        guard let (corpus, rows) = try AVIFTest.manifestRows() else { try Skip.because("corpus not found", bootstrapProvides: false) }
        var checked = 0
        for row in rows where row.path.hasPrefix("avif/") {
            let bytes = try TestFiles.read(corpus + "/" + row.path)
            let lengths = (1...25).map { bytes.count * $0 / 25 }.filter { $0 > 0 }
            let expected = Result { try AVIFTest.decode(bytes) }
            // Files libavif rejects (reference-tool-fails rows) may fail as soon as their header is in.
            let valid = (try? expected.get()) != nil
            let run = try Self.feed(bytes, lengths: lengths, prefixErrorsAllowed: !valid)
            switch expected {
            case .success(let image): try Self.expectFinalEqualsDecode(run, image, row.path)
            case .failure(let error):
                let status = (error as? PipelineError)?.status
                #expect(run.finalError?.status == status, "\(row.path): final \(String(describing: run.finalError)) vs decode \(error)")
            }
            checked += 1
        }
        #expect(checked > 30)
    }

    /// bad/ files: updates may fail, but never crash, and the final update reports what decode reports.
    @Test(.requiresCorpus) func badFilesFinishLikeDecode() throws {
        guard let (corpus, rows) = try AVIFTest.manifestRows() else { try Skip.because("corpus not found", bootstrapProvides: false) }
        for row in rows where row.path.hasPrefix("bad/") {
            let bytes = try TestFiles.read(corpus + "/" + row.path)
            guard bytes.count > 64,
                  let decoder = try AVIFTest.coders().incrementalDecoder(forPrefix: Array(bytes.prefix(64)))
            else { continue }
            for step in 1...9 { _ = try? decoder.update(data: Array(bytes.prefix(bytes.count * step / 10)), isFinal: false) }
            let final = Result { try decoder.update(data: bytes, isFinal: true) }
            let expected = Result { try AVIFTest.decode(bytes) }
            switch (final, expected) {
            case (.success(let a?), .success(let b)): #expect(a.bytes == b.bytes, "\(row.path)")
            case (.failure(let a), .failure(let b)):
                #expect((a as? PipelineError)?.status == (b as? PipelineError)?.status, "\(row.path): \(a) vs \(b)")
            default: Issue.record("\(row.path): final \(final) but decode \(expected)")
            }
        }
    }

    /// What previews cost (printed, not asserted): a 2048x1536 4x4 grid fed in 20 steps, against one decode.
    @Test func previewCostOfALargeGrid() throws {
        guard ReferenceTools.available else { try Skip.because(ReferenceTools.missingMessage, bootstrapProvides: true) }
        let bytes = try ReferenceTools.encode(Raster.pattern(width: 2048, height: 1536, seed: 9, noise: 60), ["--grid", "4x4"])
        let clock = ContinuousClock()
        var decoded: Image?
        let oneShot = try clock.measure { decoded = try AVIFTest.decode(bytes) }
        let decoder = try #require(try AVIFTest.coders().incrementalDecoder(forPrefix: Array(bytes.prefix(64))))
        var previews = 0
        var final: Image?
        let streaming = try clock.measure {
            for step in 1...19 where try decoder.update(data: Array(bytes.prefix(bytes.count * step / 20)), isFinal: false) != nil {
                previews += 1
            }
        }
        let finishing = try clock.measure { final = try decoder.update(data: bytes, isFinal: true) }
        #expect(final?.bytes == decoded?.bytes)
        print("2048x1536 4x4 grid, \(bytes.count) bytes: decode \(oneShot), 19 partial updates \(streaming) "
              + "(\(previews) previews, copying each prefix included), final update \(finishing)")
    }

    // MARK: Errors and limits

    /// A download that ends early: the final update reports TRUNCATED, like decode.
    @Test func truncatedFinalUpdateIsTruncated() throws {
        guard ReferenceTools.available else { try Skip.because(ReferenceTools.missingMessage, bootstrapProvides: true) }
        let bytes = try ReferenceTools.encode(Raster.pattern(width: 384, height: 288, seed: 5, noise: 60), ["--grid", "3x3"])
        let cut = Array(bytes.prefix(bytes.count * 7 / 10))
        let decoder = try #require(try AVIFTest.coders().incrementalDecoder(forPrefix: cut))
        let preview = try decoder.update(data: cut, isFinal: false)
        #expect(preview != nil, "70 % of a 3x3 grid previews some rows")
        #expect(throws: PipelineError.self) { try decoder.update(data: cut, isFinal: true) }
        do {
            _ = try decoder.update(data: cut, isFinal: true)
        } catch let error as PipelineError {
            #expect(error.status == .truncated && AVIFTest.decodeStatus(cut) == .truncated, "\(error)")
        }
    }

    /// The pixel limit is enforced as soon as the header tells the size, before any pixel is decoded.
    @Test func limitsApplyOnceTheHeaderIsKnown() throws {
        guard ReferenceTools.available else { try Skip.because(ReferenceTools.missingMessage, bootstrapProvides: true) }
        let bytes = try ReferenceTools.encode(Raster.pattern(width: 384, height: 288, seed: 5, noise: 60), ["--grid", "3x3"])
        let options = DecodeOptions(limits: DecodeLimits(maxPixels: 100 * 100))
        let decoder = try #require(try AVIFTest.coders().incrementalDecoder(forPrefix: bytes, options: options))
        let header = Self.headerEnd(bytes)
        #expect(try decoder.update(data: Array(bytes.prefix(header - 1)), isFinal: false) == nil)
        do {
            _ = try decoder.update(data: Array(bytes.prefix(header + 16)), isFinal: false)
            Issue.record("no error once the header is known")
        } catch let error as PipelineError {
            #expect(error.status == .limitExceeded, "\(error)")
        }
        do {
            _ = try decoder.update(data: bytes, isFinal: true)
            Issue.record("no error on the final update")
        } catch let error as PipelineError {
            #expect(error.status == .limitExceeded, "\(error)")
        }
    }

    /// A frame other than 0 (or a page other than 0) has no previews; the final update answers like decode.
    @Test(.requiresCorpus) func otherFramesOnlyAtTheEnd() throws {
        guard let bytes = try AVIFTest.corpusFile("avif/star-8bpc.avifs") else { return }
        let options = DecodeOptions(frameIndex: 2)
        let run = try Self.feed(bytes, options: options)
        #expect(run.previews.isEmpty)
        try Self.expectFinalEqualsDecode(run, try AVIFTest.decode(bytes, options), "star frame 2")
        // Frame 0 of a sequence previews once its sample is in.
        let first = try Self.feed(bytes)
        #expect(first.previews.contains { $0.length < bytes.count })
        try Self.expectFinalEqualsDecode(first, try AVIFTest.decode(bytes), "star frame 0")
    }

    // MARK: Helpers

    /// Every 1 % of the file and every byte from 48 before to 48 after the end of the header (ftyp + meta/moov).
    static func prefixLengths(_ bytes: [UInt8]) -> [Int] {
        let header = headerEnd(bytes)
        let around = Set(max(1, header - 48)...min(bytes.count, header + 48))
        let percents = Set((1...100).map { max(1, bytes.count * $0 / 100) })
        return around.union(percents).sorted()
    }

    /// Feeds growing prefixes (non-final), then the whole file as the final update.
    static func feed(
        _ bytes: [UInt8], options: DecodeOptions = DecodeOptions(), lengths: [Int]? = nil, prefixErrorsAllowed: Bool = false
    ) throws -> Run {
        let decoder = try #require(try AVIFTest.coders().incrementalDecoder(forPrefix: Array(bytes.prefix(64)), options: options))
        var run = Run()
        for length in lengths ?? prefixLengths(bytes) {
            do {
                run.updates.append((length, try decoder.update(data: Array(bytes.prefix(length)), isFinal: false)))
            } catch {
                if !prefixErrorsAllowed { Issue.record("update with \(length) of \(bytes.count) bytes failed: \(error)") }
            }
        }
        do {
            run.final = try decoder.update(data: bytes, isFinal: true)
        } catch let error as PipelineError {
            run.finalError = error
        }
        return run
    }

    static func expectFinalEqualsDecode(_ run: Run, _ decoded: Image, _ label: String) throws {
        let final = try #require(run.final, "\(label): final update gave \(String(describing: run.finalError))")
        #expect((final.width, final.height, final.pixelFormat, final.alphaMode)
                == (decoded.width, decoded.height, decoded.pixelFormat, decoded.alphaMode), "\(label)")
        #expect(final.bytes == decoded.bytes, "\(label): final image differs from decode")
    }

    /// End of the ftyp + meta (+ moov) boxes: the bytes avifDecoderParse needs.
    static func headerEnd(_ bytes: [UInt8]) -> Int {
        var offset = 0, end = 0
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard size >= 8 else { break }
            if ["ftyp", "meta", "moov"].contains(type) { end = offset + size }
            offset += size
        }
        return min(end, bytes.count)
    }

    struct PreviewCheck: CustomStringConvertible {
        var covered = 0
        var maxDifference = 0
        var transparentElsewhere = true
        var description: String { "\(covered) pixels drawn, max difference \(maxDifference)" }
    }

    /// Drawn preview pixels (any non-zero sample) against the final image; the rest must be (0, 0, 0, 0).
    static func compare(preview: Image, final: Image) -> PreviewCheck {
        var check = PreviewCheck()
        for y in 0..<preview.height {
            for x in 0..<preview.width {
                let p = preview.pixel(x: x, y: y)
                guard p.a != 0 || p.r != 0 || p.g != 0 || p.b != 0 else { continue }
                check.covered += 1
                let f = final.pixel(x: x, y: y)
                for (a, b) in [(p.r, f.r), (p.g, f.g), (p.b, f.b), (p.a, f.a)] {
                    check.maxDifference = max(check.maxDifference, abs(Int(a) - Int(b)))
                }
            }
        }
        return check
    }
}
