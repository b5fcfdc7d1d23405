import Foundation
import PipelineHost
import Testing
import TestSupport

/// Lossless JPEG recompression through the transcode slot: a JPEG stored as JPEG XL comes back bit for bit, here and
/// through libjxl's own tools (cjxl writes what this reads back, djxl rebuilds what this writes).
@Suite("JPEG XL lossless JPEG recompression")
struct JXLTranscodeTests {
    /// Photos as JPEG from ImageMagick: baseline 4:2:0, progressive, 4:4:4 with a comment, grey, and an odd size
    /// (partial MCUs at the right and bottom edges, which reconstruction must pad exactly as the original did).
    static func jpegs() throws -> [(name: String, bytes: [UInt8])] {
        let convert = try Skip.unlessTool("convert")
        let folder = try TestPaths.temporaryDirectory("jxl-transcode")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plasma = "-size 320x240 -seed 9 plasma:fractal"
        let variants: [(String, String)] = [
            ("baseline", "\(plasma) -quality 85"),
            ("progressive", "\(plasma) -interlace JPEG -quality 75"),
            ("444-comment", "\(plasma) -sampling-factor 1x1 -set comment imagepipe -quality 92"),
            ("grey", "\(plasma) -colorspace Gray -quality 80"),
            ("odd-size", "-size 321x243 -seed 4 plasma:fractal -quality 80"),
        ]
        return try variants.map { name, arguments in
            let made = try CommandLine.shell("'\(convert)' \(arguments) '\(folder)/\(name).jpg'")
            try #require(made.status == 0, "\(name): \(made.stderr)")
            return (name, try TestFiles.read("\(folder)/\(name).jpg"))
        }
    }

    @Test("jpeg → jxl → jpeg gives the original bytes, smaller in between, and the file says it holds them")
    func roundTripIsExact() throws {
        let coders = try JXLTesting.coders()
        for (name, jpeg) in try Self.jpegs() {
            guard case .converted(let jxl) = try coders.transcode(data: jpeg, to: "jxl", from: "jpeg") else {
                Issue.record("\(name): declined"); continue
            }
            #expect(jxl.count < jpeg.count, "\(name): \(jpeg.count) -> \(jxl.count) bytes")
            #expect(try coders.probe(data: jxl).details.contains("JPEG reconstruction data"), "\(name)")
            #expect(try coders.transcode(data: jxl, to: "jpeg") == .converted(jpeg), "\(name): not the original bytes")
            // The pixels decode too, at the JPEG's size.
            let image = try coders.decode(data: jxl)
            #expect(name == "odd-size" ? (image.width, image.height) == (321, 243) : (image.width, image.height) == (320, 240), "\(name)")
        }
    }

    @Test("libjxl's tools agree: djxl rebuilds our files exactly, and cjxl's recompression comes back through us")
    func referenceToolsAgree() throws {
        let djxl = try Skip.unlessTool("djxl"), cjxl = try Skip.unlessTool("cjxl")
        let coders = try JXLTesting.coders()
        let folder = try TestPaths.temporaryDirectory("jxl-transcode-tools")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (name, jpeg) in try Self.jpegs().prefix(3) {
            guard case .converted(let ours) = try coders.transcode(data: jpeg, to: "jxl", from: "jpeg") else {
                Issue.record("\(name): declined"); continue
            }
            let oursPath = try TestFiles.write(ours, to: "\(folder)/\(name).jxl")
            let rebuilt = try CommandLine.run(djxl, [oursPath, "\(folder)/\(name).djxl.jpg"])
            try #require(rebuilt.status == 0, "\(rebuilt.stderr)")
            #expect(try TestFiles.read("\(folder)/\(name).djxl.jpg") == jpeg, "\(name): djxl did not rebuild the original")
            let jpegPath = try TestFiles.write(jpeg, to: "\(folder)/\(name).jpg")
            let theirs = try CommandLine.run(cjxl, [jpegPath, "\(folder)/\(name).cjxl.jxl", "--lossless_jpeg=1"])
            try #require(theirs.status == 0, "\(theirs.stderr)")
            let cjxlFile = try TestFiles.read("\(folder)/\(name).cjxl.jxl")
            #expect(try coders.transcode(data: cjxlFile, to: "jpeg") == .converted(jpeg), "\(name): cjxl's file did not give the original back")
        }
    }

    @Test("a JPEG XL made from pixels declines (the host then decodes), and bad input fails with one line")
    func declinesAndFailures() throws {
        let coders = try JXLTesting.coders()
        let fromPixels = try coders.encode(try JXLTesting.picture(width: 30, height: 20), format: "jxl")
        guard case .declined(let reason) = try coders.transcode(data: fromPixels, to: "jpeg") else {
            Issue.record("a pixel-made JPEG XL cannot hold an original JPEG"); return
        }
        #expect(reason.contains("no JPEG reconstruction data"), "\(reason)")
        // Not a JPEG, told it is one.
        #expect(failureStatus { _ = try coders.transcode(data: Array("not a jpeg at all".utf8), to: "jxl", from: "jpeg") } == .invalidData)
        // A JPEG cut in half: libjxl reads its headers, then finds the scan data missing.
        let jpeg = try Self.jpegs()[0].bytes
        let cut = Array(jpeg.prefix(jpeg.count / 2))
        let status = failureStatus { _ = try coders.transcode(data: cut, to: "jxl", from: "jpeg") }
        #expect(status == .invalidData || status == .unsupported, "\(String(describing: status))")
        // A recompressed file cut short before its codestream ends.
        guard case .converted(let jxl) = try coders.transcode(data: jpeg, to: "jxl", from: "jpeg") else { return }
        for length in [8, 40, jxl.count / 2, jxl.count - 1] {
            let outcome = Result { try coders.transcode(data: Array(jxl.prefix(length)), to: "jpeg") }
            if case .success(.converted) = outcome { Issue.record("a file cut at \(length) of \(jxl.count) bytes reconstructed") }
        }
    }

    @Test("the corpus's JPEG-reconstruction files give back what djxl rebuilds", .requiresCorpus)
    func corpusReconstructionFiles() throws {
        let corpus = try Skip.unlessCorpus()
        let djxl = try Skip.unlessTool("djxl")
        let coders = try JXLTesting.coders()
        let rows = try CorpusManifest.testRows(in: corpus).filter { $0.format == "jxl" && $0.details.contains("jbrd") }
        #expect(rows.count >= 2)
        let folder = try TestPaths.temporaryDirectory("jxl-transcode-corpus")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for row in rows {
            let rebuilt = try CommandLine.run(djxl, [corpus + "/" + row.path, folder + "/out.jpg"])
            try #require(rebuilt.status == 0, "\(row.path): \(rebuilt.stderr)")
            let expected = try TestFiles.read(folder + "/out.jpg")
            #expect(try coders.transcode(data: try TestFiles.read(corpus + "/" + row.path), to: "jpeg") == .converted(expected), "\(row.path)")
        }
    }
}
