import Foundation
import PipelineHost
import Testing
import TestSupport

/// The shared third-party corpus (../shared/corpus), driven by its manifest: every JPEG XL row of jxl/ and bad/.
@Suite("JPEG XL corpus", .requiresCorpus)
struct JXLCorpusTests {
    static func rows() throws -> (corpus: String, rows: [CorpusManifestRow]) {
        let corpus = try Skip.unlessCorpus()
        return (corpus, try CorpusManifest.testRows(in: corpus).filter { $0.format == "jxl" })
    }

    @Test("every valid file probes and decodes at the manifest's display size, frame count and alpha")
    func validFilesDecode() throws {
        let (corpus, rows) = try Self.rows()
        let coders = try JXLTesting.coders()
        let valid = rows.filter { $0.outcome == "ok" || $0.outcome == "reference-tool-fails" }
        #expect(valid.count >= 16)
        for row in valid {
            let bytes = try TestFiles.read(corpus + "/" + row.path)
            let info = try coders.probe(data: bytes)
            #expect(info.format == "jxl", "\(row.path)")
            #expect((info.width, info.height) == (row.width, row.height), "\(row.path): probe says \(info.width)x\(info.height)")
            if let frames = row.framesOrPages { #expect(info.frameCount == frames, "\(row.path): \(info.frameCount) frames") }
            if let alpha = row.hasAlpha { #expect(info.hasAlpha == alpha, "\(row.path)") }
            let image = try coders.decode(data: bytes)
            #expect((image.width, image.height) == (row.width, row.height), "\(row.path): decoded \(image.width)x\(image.height)")
        }
    }

    @Test("every bad file fails with one line, or decodes where the manifest allows either; never a crash")
    func badFilesFailCleanly() throws {
        let (corpus, rows) = try Self.rows()
        let coders = try JXLTesting.coders()
        #expect(try CorpusManifest.expectBadRowsFailCleanly(rows, corpus: corpus, coders: coders) >= 5)
    }

    @Test("8-bit stills match djxl in their own colour space (lossless ones exactly)")
    func matchesDjxl() throws {
        let (corpus, _) = try Self.rows()
        let coders = try JXLTesting.coders()
        for (name, tolerance) in [("jxlrs-gray_alpha_lossless.jxl", 0), ("jxlrs-orientation6_rotate_90_cw.jxl", 0),
                                  ("conformance-lz77_flower.jxl", 0), ("jxlrs-3x3a_srgb_lossy.jxl", 1)] {
            let bytes = try TestFiles.read(corpus + "/jxl/" + name)
            // .keep: the pixels as the coder produced them, in the file's space, as djxl writes them.
            let image = try coders.decode(data: bytes, options: DecodeOptions(colorOutput: .keep))
            let reference = try JXLTesting.djxl(bytes)
            #expect((image.width, image.height) == (reference.width, reference.height), "\(name)")
            let difference = JXLTesting.maxDifference(image, reference)
            #expect(difference <= tolerance, "\(name): differs from djxl by up to \(difference) levels")
        }
    }

    @Test("info names the container's metadata and JPEG reconstruction boxes")
    func boxesInDetails() throws {
        let (corpus, _) = try Self.rows()
        let coders = try JXLTesting.coders()
        let oriented = try coders.probe(data: try TestFiles.read(corpus + "/jxl/conformance-bench_oriented_brg.jxl"))
        #expect(oriented.details.contains("Exif box") && oriented.details.contains("JPEG reconstruction data (jbrd)"), "\(oriented.details)")
        let indexed = try coders.probe(data: try TestFiles.read(corpus + "/jxl/jxlrs-5_frames_numbered_jxli.jxl"))
        #expect(indexed.details.contains("frame index (jxli)"), "\(indexed.details)")
        let naked = try coders.probe(data: try TestFiles.read(corpus + "/jxl/conformance-lz77_flower.jxl"))
        #expect(naked.details.hasPrefix("codestream") && !naked.details.contains("box"), "\(naked.details)")
    }

    @Test("an animation is read frame by frame with its durations; PQ and HLG sources carry their CICP")
    func animationAndHDR() throws {
        let (corpus, _) = try Self.rows()
        let coders = try JXLTesting.coders()
        let frames = try coders.allFrames(data: try TestFiles.read(corpus + "/jxl/conformance-animation_icos4d.jxl"))
        #expect(frames.count == 48)
        #expect(frames.allSatisfy { $0.durationMilliseconds == 50 }, "\(frames.map(\.durationMilliseconds).prefix(4))")
        let numbered = try coders.allFrames(data: try TestFiles.read(corpus + "/jxl/jxlrs-5_frames_numbered_jxli.jxl"))
        #expect(numbered.map(\.durationMilliseconds) == [500, 500, 500, 500, 500])
        for (name, transfer) in [("jxlrs-hdr_pq_test.jxl", 16), ("jxlrs-hdr_hlg_test.jxl", 18)] {
            let info = try coders.probe(data: try TestFiles.read(corpus + "/jxl/" + name))
            #expect(info.color?.cicp?.transfer == transfer, "\(name): \(String(describing: info.color))")
            #expect(info.details.contains(transfer == 16 ? "PQ" : "HLG"), "\(info.details)")
        }
    }
}
