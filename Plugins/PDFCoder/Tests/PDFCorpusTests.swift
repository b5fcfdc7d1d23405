import Foundation
import PipelineHost
import Testing
import TestSupport

/// The shared third-party corpus (../shared/corpus, see its README): real PDFs must render at the size and
/// page count the manifest records (pdftoppm -r 72 -cropbox, rounded up); hostile ones must fail cleanly.
@Suite("PDF corpus")
struct PDFCorpusTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var path: String
        var outcome: String
        var width: Int?
        var height: Int?
        var pages: Int?
        var testDescription: String { path }
    }

    /// pdf rows with role "test" (empty when the corpus is absent).
    static let rows: [Row] = {
        guard let corpus = TestPaths.corpus, let all = try? CorpusManifest.testRows(in: corpus) else { return [] }
        return all.filter { $0.format == "pdf" }.map {
            Row(path: $0.path, outcome: $0.outcome, width: $0.width, height: $0.height, pages: $0.framesOrPages)
        }
    }()

    static let validRows = rows.filter { !$0.path.hasPrefix("bad/") && $0.outcome == "ok" }
    static let hostileRows = rows.filter { $0.path.hasPrefix("bad/") }

    /// Files whose rendering poppler itself cannot bound: a Type3 glyph whose content stream draws itself makes
    /// poppler-glib + cairo grow to ~5.4 GB and fail after 8-19 s here (pdftocairo does the same). Only probed;
    /// the host is expected to isolate this coder (it declares RECOMMENDS_ISOLATION).
    static let tooCostlyToRender: Set<String> = ["bad/safedocs-ContentStreamCycleType3insideType3.pdf"]

    static func bytes(_ row: Row) throws -> [UInt8]? {
        guard let corpus = TestPaths.corpus else { return nil }
        return try TestFiles.read(corpus + "/" + row.path)
    }

    @Test("the manifest lists valid and hostile PDFs (skipped without the corpus)", .requiresCorpus)
    func manifestRead() throws {
        guard TestPaths.corpus != nil else { try Skip.because("corpus not found (../shared/corpus)", bootstrapProvides: false) }
        #expect(!Self.validRows.isEmpty && !Self.hostileRows.isEmpty)
    }

    @Test("valid PDFs: page count and page-1 size at 72 dpi match the manifest (±1 px)", arguments: validRows)
    func valid(_ row: Row) throws {
        guard let bytes = try Self.bytes(row) else { return }
        #expect(try PDFTest.coders().coder(forData: bytes)?.descriptor.id == PDFTest.coderID)
        let info = try PDFTest.probe(bytes)
        if let pages = row.pages { #expect(info.pageCount == pages) }
        let image = try PDFTest.decode(bytes)
        if let width = row.width, let height = row.height {
            #expect(abs(image.width - width) <= 1 && abs(image.height - height) <= 1,
                    "\(image.width)x\(image.height), manifest \(width)x\(height)")
            #expect(abs(info.width - width) <= 1 && abs(info.height - height) <= 1)
        }
        // A thumbnail of the last page works too (different page sizes and rotations live there).
        let last = max(0, info.pageCount - 1)
        let thumbnail = try PDFTest.decode(bytes, DecodeOptions(thumbnailSize: PixelSize(width: 128, height: 128), pageIndex: last))
        #expect(max(thumbnail.width, thumbnail.height) == 128 && thumbnail.index == last)

        // Page 1 at 256 px fits pdftocairo's rendering at the same size (metric of PDFReferenceTests).
        guard Reference.available else { return }
        let fitted = try PDFTest.decode(bytes, DecodeOptions(thumbnailSize: PixelSize(width: 256, height: 256)))
        let reference = try Reference.render(bytes, size: PixelSize(width: fitted.width, height: fitted.height))
        let comparison = try PixelComparison(fitted, reference: reference)
        #expect(comparison.shareWithin >= PDFReferenceTests.minimumShare, "\(comparison)")
    }

    @Test("hostile PDFs: an error where the manifest expects one, never a crash", arguments: hostileRows)
    func hostile(_ row: Row) throws {
        guard let bytes = try Self.bytes(row) else { return }
        if Self.tooCostlyToRender.contains(row.path) {
            print("\(row.path): probe only (rendering it costs ~5 GB and seconds in poppler itself)")
            _ = try? PDFTest.probe(bytes)
            return
        }
        let error = try PDFTest.decodeError(bytes)
        if row.outcome == "error" {
            let failure = try #require(error, "\(row.path) decoded although the manifest expects an error")
            #expect([.invalidData, .truncated, .unsupported].contains(failure.status), "\(failure)")
            #expect((try? PDFTest.probe(bytes)) == nil, "probe accepted \(row.path)")
        }
    }
}
