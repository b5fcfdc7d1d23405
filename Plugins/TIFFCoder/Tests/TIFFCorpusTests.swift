import Foundation
import PipelineHost
import Testing
import TestSupport

/// The shared corpus's TIFF rows (../shared/corpus/tiff and bad/), and comparisons with libtiff's own tiff2rgba.
@Suite("TIFF corpus", .requiresCorpus)
struct TIFFCorpusTests {
    static func coders() throws -> CodersManager { try PluginSandbox.host(loading: ["libTIFFCoder.so"]).coders }

    static func rows() throws -> (corpus: String, rows: [CorpusManifestRow]) {
        let corpus = try Skip.unlessCorpus()
        return (corpus, try CorpusManifest.testRows(in: corpus).filter { $0.format == "tiff" })
    }

    /// Valid files this coder does not read yet, each refused with UNSUPPORTED saying why (the README lists the gaps).
    static let knownUnsupported: Set<String> = []

    @Test("every valid file decodes at its display size, with its pages (reduced-resolution copies are not pages)")
    func validFilesDecode() throws {
        let (corpus, rows) = try Self.rows()
        let coders = try Self.coders()
        let valid = rows.filter { $0.outcome == "ok" && $0.path.hasPrefix("tiff/") }
        #expect(valid.count >= 20)
        for row in valid {
            let bytes = try TestFiles.read(corpus + "/" + row.path)
            let info = try coders.probe(data: bytes)
            // The manifest's size columns are the stored size; its details say "displayed WxH" where the
            // Orientation tag turns the image (corpus/README.md).
            var expected = (row.width, row.height)
            if let match = row.details.firstMatch(of: /displayed (\d+)x(\d+)/) { expected = (Int(match.output.1), Int(match.output.2)) }
            #expect((info.width, info.height) == expected, "\(row.path): probe says \(info.width)x\(info.height)")
            let reduced = row.details.components(separatedBy: "reduced-res").count - 1
            if let pages = row.framesOrPages { #expect(info.pageCount == pages - reduced, "\(row.path): \(info.pageCount) pages") }
            if let alpha = row.hasAlpha { #expect(info.hasAlpha == alpha, "\(row.path)") }
            if Self.knownUnsupported.contains(row.path) {
                #expect(throws: PipelineError.self) { try coders.decode(data: bytes) }
                continue
            }
            let image = try coders.decode(data: bytes)
            #expect((image.width, image.height) == expected, "\(row.path): decoded \(image.width)x\(image.height)")
        }
    }

    @Test("every bad file fails with one line, or decodes where the manifest allows either; never a crash")
    func badFilesFailCleanly() throws {
        let (corpus, rows) = try Self.rows()
        let coders = try Self.coders()
        #expect(try CorpusManifest.expectBadRowsFailCleanly(rows, corpus: corpus, coders: coders) >= 6)
    }

    @Test("pixels match libtiff's tiff2rgba (same library, so exactly), after the orientation")
    func matchesTiff2rgba() throws {
        let (corpus, _) = try Self.rows()
        let tool = try Skip.unlessTool("tiff2rgba")
        let coders = try Self.coders()
        let folder = try TestPaths.temporaryDirectory("tiff2rgba")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["libtiff-quad-lzw.tif", "exampletiffs-shapes_lzw_tiled.tif", "libtiff-palette-1c-4b.tiff", "libtiff-fax2d.tif",
                     "pillow-tiff_tiled_ycbcr_jpeg_2x2_sampling.tif", "libtiff-ladoga.tif", "pillow-hopper_bigtiff.tif"] {
            let path = corpus + "/tiff/" + name
            // tiff2rgba writes an uncompressed RGBA TIFF, which this coder reads back as stored.
            let result = try CommandLine.run(tool, ["-c", "none", path, folder + "/ref.tif"])
            guard result.status == 0 else { Issue.record("tiff2rgba \(name): \(result.stderr)"); continue }
            let ours = try coders.decode(data: try TestFiles.read(path), options: DecodeOptions(colorOutput: .keep))
            let reference = try coders.decode(data: try TestFiles.read(folder + "/ref.tif"), options: DecodeOptions(colorOutput: .keep))
            #expect((ours.width, ours.height) == (reference.width, reference.height), "\(name)")
            var worst = 0
            for y in 0..<min(ours.height, reference.height) {
                for x in 0..<min(ours.width, reference.width) {
                    let a = ours.pixel(x: x, y: y), b = reference.pixel(x: x, y: y)
                    worst = max(worst, abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)))
                }
            }
            #expect(worst <= 1, "\(name): differs from tiff2rgba by up to \(worst)")
        }
    }

    @Test("floating-point pages (32-bit with the floating-point predictor, 16-bit halves) read into RGBA16 as ImageMagick reads them")
    func floatingPoint() throws {
        let (corpus, _) = try Self.rows()
        let convert = try Skip.unlessTool("convert")
        let coders = try Self.coders()
        let folder = try TestPaths.temporaryDirectory("tiff-float")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["imagetiff-predictor-3-rgb-f32.tif", "imagetiff-random-fp16.tiff"] {
            let path = corpus + "/tiff/" + name
            let image = try coders.decode(data: try TestFiles.read(path), options: DecodeOptions(highBitDepth: true, colorOutput: .keep))
            #expect(image.pixelFormat == .rgba16, "\(name)")
            // ImageMagick's own TIFF reader (not libtiff's RGBA interface): 16-bit RGB samples, little-endian.
            let result = try CommandLine.run(convert, [path, "-depth", "16", "-endian", "LSB", "rgb:" + folder + "/ref.raw"])
            guard result.status == 0 else { Issue.record("convert \(name): \(result.stderr)"); continue }
            let reference = Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/ref.raw")))
            #expect(reference.count == image.width * image.height * 6, "\(name)")
            var worst = 0
            for y in 0..<image.height {
                for x in 0..<image.width {
                    let p = image.pixel(x: x, y: y), o = (y * image.width + x) * 6
                    for (c, ours) in [p.r, p.g, p.b].enumerated() where o + c * 2 + 1 < reference.count {
                        let theirs = Int(reference[o + c * 2]) | Int(reference[o + c * 2 + 1]) << 8
                        worst = max(worst, abs(Int(ours) - theirs))
                    }
                }
            }
            #expect(worst <= 2, "\(name): differs from ImageMagick by up to \(worst) of 65535")
        }
    }

    @Test("orientation 6 is applied: the display is the stored image turned a quarter clockwise")
    func orientationSix() throws {
        let (corpus, _) = try Self.rows()
        let coders = try Self.coders()
        let bytes = try TestFiles.read(corpus + "/tiff/pillow-g4_orientation_6.tif")
        let shown = try coders.decode(data: bytes)
        let stored = try coders.decode(data: bytes, options: DecodeOptions(ignoreOrientation: true))
        #expect((shown.width, shown.height) == (stored.height, stored.width))
        var same = true
        for y in Swift.stride(from: 0, to: shown.height, by: 7) {
            for x in Swift.stride(from: 0, to: shown.width, by: 5) where shown.pixel(x: x, y: y) != stored.pixel(x: y, y: stored.height - 1 - x) {
                same = false
            }
        }
        #expect(same, "display(x, y) must be stored(y, storedHeight - 1 - x)")
    }

    @Test("pages are pages: --page picks one, past the last is not found")
    func pages() throws {
        let (corpus, _) = try Self.rows()
        let coders = try Self.coders()
        let bytes = try TestFiles.read(corpus + "/tiff/pillow-multipage.tiff")
        #expect(try coders.probe(data: bytes).pageCount == 3)
        for page in 0..<3 { #expect(try coders.decode(data: bytes, options: DecodeOptions(pageIndex: page)).index == page) }
        #expect(throws: PipelineError.self) { try coders.decode(data: bytes, options: DecodeOptions(pageIndex: 3)) }
    }
}
