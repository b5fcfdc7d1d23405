import Foundation
import Testing
import TestSupport

/// Every failure of the CLI is exactly one line on stderr that names the file, says what failed and, where a flag
/// fixes it, names the flag. Library chatter (dav1d's OBU warnings, libxml's multi-line parse errors) never
/// reaches that stderr.
@Suite struct FailureLineTests {
    static let binary = TestPaths.imagepipeBinary

    static func render(_ arguments: [String], environment: [String: String]? = nil) throws -> ProcessResult {
        try CommandLine.run(binary, ["render"] + arguments, environment: environment)
    }

    /// The one stderr line of a failed run (the test fails when there are more or none).
    static func oneLine(_ result: ProcessResult, _ what: String) -> String {
        #expect(result.status == 1, "\(what): status \(result.status), stderr \(result.stderr)")
        #expect(result.stderr.hasSuffix("\n") && result.stderr.filter { $0 == "\n" }.count == 1,
                "\(what): not exactly one line: \(result.stderr)")
        return String(result.stderr.dropLast())
    }

    @Test(.requiresCorpus) func everyExpectedFailureOfTheCorpusIsOneLineNamingTheFile() throws {
        let corpus = try Skip.unlessCorpus()
        let folder = try TestPaths.temporaryDirectory("failure-lines")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Files that only fail slowly (a 30 s render, a 2 GiB poppler) are the isolation suite's business.
        let slow = ["feTurbulence", "ContentStreamCycle"]
        let rows = try CorpusManifest.testRows(in: corpus).filter { row in
            row.outcome == "error" && row.path.hasPrefix("bad/") && !slow.contains { row.path.contains($0) }
        }
        #expect(rows.count >= 25, "\(rows.count) rows")
        var failures = 0
        for row in rows {
            let path = corpus + "/" + row.path
            try? FileManager.default.removeItem(atPath: folder + "/out.png")
            let result = try Self.render([path, "--size", "64x64", "-o", folder + "/out.png", "--timeout", "10"])
            // A few "error" rows are fine for us (a PNG named .avif is sniffed as PNG; a too-large SVG is asked at 64x64).
            if result.status == 0 { continue }
            failures += 1
            let line = Self.oneLine(result, row.path)
            #expect(line.hasPrefix("imagepipe render: \(path): "), "\(row.path): \(line)")
            #expect(line.range(of: #"\[E\d{4}\]$"#, options: .regularExpression) != nil, "\(row.path): no code: \(line)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/out.png"), "\(row.path) left an output")
        }
        #expect(failures >= 25, "\(failures) failures")
    }

    @Test func libxmlErrorsWithNewlinesAreFoldedIntoOneLine() throws {
        let folder = try TestPaths.temporaryDirectory("failure-lines")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // An unterminated start tag and a control character: libxml's messages for both end in a newline.
        let svg = try TestFiles.write(Array("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\">\n<rect x=\"1\u{16}\" y=\n".utf8),
                                      to: folder + "/broken.svg")
        let line = Self.oneLine(try Self.render([svg, "-o", folder + "/out.png"]), "broken svg")
        #expect(line.hasPrefix("imagepipe render: \(svg): not a valid SVG document"), "\(line)")
    }

    @Test func decoderChatterOnStderrIsKeptOutOfTheErrorLine() throws {
        let folder = try TestPaths.temporaryDirectory("failure-lines")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // An AVIF made here whose first OBU header is zeroed: dav1d prints "Unknown OBU type 0 of size N" itself.
        let png = folder + "/in.png", avif = folder + "/in.avif"
        let sample = TestPaths.repositoryRoot + "/samples/badge.svg"
        #expect(try Self.render([sample, "--size", "64x0", "-o", png]).status == 0)
        #expect(try Self.render([png, "-o", avif]).status == 0)
        var bytes = try TestFiles.read(avif)
        let mdat = try #require(bytes.firstRange(of: Array("mdat".utf8)))
        bytes[mdat.upperBound] = 0
        let broken = try TestFiles.write(bytes, to: folder + "/broken.avif")
        let shown = try Self.render([broken, "-o", folder + "/out.png"], environment: ["IMAGEPIPE_LIBRARY_STDERR": "show"])
        #expect(shown.stderr.contains("OBU"), "the fixture no longer makes dav1d talk: \(shown.stderr)")
        let line = Self.oneLine(try Self.render([broken, "-o", folder + "/out.png"]), "broken avif")
        #expect(line.hasPrefix("imagepipe render: \(broken): libavif failed"), "\(line)")
        #expect(!line.contains("OBU type"), "\(line)")
    }

    @Test func flagsThatFixAFailureAreNamed() throws {
        let folder = try TestPaths.temporaryDirectory("failure-lines")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let svg = TestPaths.repositoryRoot + "/samples/icon.svg", pdf = TestPaths.repositoryRoot + "/samples/report.pdf"
        let out = folder + "/out.png"
        let pixels = Self.oneLine(try Self.render([svg, "--size", "1000x0", "--max-pixels", "1000", "-o", out]), "pixels")
        #expect(pixels.contains("--max-pixels"), "\(pixels)")
        let page = Self.oneLine(try Self.render([pdf, "--page", "2", "-o", out]), "page")
        #expect(page.contains("numbered from 0"), "\(page)")
        #expect(page.contains("(0...1)"), "\(page)")
        let info = try CommandLine.run(Self.binary, ["info", pdf])
        #expect(info.stdout.contains("2 pages, numbered from 0; page 0: "), "\(info.stdout)")
        #expect(info.stdout.contains("; page 1: "), "\(info.stdout)")
        if let corpus = TestPaths.corpus {
            let encrypted = corpus + "/bad/pdfjs-saslprep-r6.pdf"
            let password = Self.oneLine(try Self.render([encrypted, "-o", out]), "password")
            #expect(password.contains("give the password with --password"), "\(password)")
        }
        let missing = Self.oneLine(try Self.render([svg, "-o", folder + "/no/such/folder/out.png"]), "folder")
        #expect(missing == "imagepipe render: cannot write \(folder)/no/such/folder/out.png: the folder \(folder)/no/such/folder does not exist", "\(missing)")
        #expect(!missing.contains("CocoaError"))
    }

    @Test func outputsAndIntermediatesAreBoundedBeforeAllocating() throws {
        let folder = try TestPaths.temporaryDirectory("failure-lines")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let small = folder + "/small.png"
        #expect(try Self.render([TestPaths.repositoryRoot + "/samples/badge.svg", "--size", "100x0", "-o", small]).status == 0)
        let out = folder + "/big.png"
        // The default 268-megapixel budget holds for an upscale too, refused at once (no 4 GB, no 30 s).
        let huge = Self.oneLine(try Self.render([small, "--size", "30000x0", "--upscale", "-o", out]), "huge")
        #expect(huge.contains("exceeds the pixel limit of 268435456") && huge.hasSuffix("[E5003]"), "\(huge)")
        #expect(huge.contains("--max-pixels"), "\(huge)")
        let limited = Self.oneLine(try Self.render([small, "--size", "1000x0", "--upscale", "--max-pixels", "10000", "-o", out]), "limited")
        #expect(limited.range(of: #"a 1000x\d+ result exceeds the pixel limit of 10000"#, options: .regularExpression) != nil, "\(limited)")
        let budget = Self.oneLine(try Self.render([small, "--size", "8000x0", "--upscale", "--max-memory", "64M", "-o", out]), "budget")
        #expect(budget.contains("over its budget of 64 MiB") && budget.contains("--max-memory") && budget.hasSuffix("[E5004]"), "\(budget)")
        #expect(!FileManager.default.fileExists(atPath: out))
        // Within the budget the same upscale works.
        #expect(try Self.render([small, "--size", "1000x0", "--upscale", "-o", out]).status == 0)
    }

    /// `--timeout` bounds an in-process decode too (it bounded isolated ones only): a 6000x6000 upscale of a PNG,
    /// seconds of work, cannot finish within 50 ms, so the outcome is the timeout line, no output and no temporary
    /// file; without --timeout the same render succeeds.
    @Test func timeoutBoundsAnInProcessRender() throws {
        let folder = try TestPaths.temporaryDirectory("failure-lines")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = folder + "/source.png"
        #expect(try Self.render([TestPaths.repositoryRoot + "/samples/icon.svg", "--size", "1500x1500", "-o", source]).status == 0)
        let out = folder + "/out.png"
        let line = Self.oneLine(try Self.render([source, "--size", "6000x6000", "--upscale", "--timeout", "0.05",
                                                 "--isolation", "in-process", "-o", out]), "timeout")
        #expect(line == "imagepipe render: \(source): the request did not finish within --timeout 0.05 s; "
                + "raise --timeout for a file known to be slow [E6002]", "\(line)")
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(".imagepipe-") }.isEmpty)
        #expect(try Self.render([source, "--size", "600x600", "--upscale", "--timeout", "60", "-o", out]).status == 0)
    }

    @Test func aLocalRenderNeedsNoCacheFolder() throws {
        let folder = try TestPaths.temporaryDirectory("failure-lines")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Self.render([TestPaths.repositoryRoot + "/samples/icon.svg", "-o", folder + "/out.png"],
                                     environment: ["HOME": folder + "/nonexistent", "XDG_CACHE_HOME": ""])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/nonexistent"), "a cache folder was created")
    }

    @Test func pluginFolderMistakesAreCaught() throws {
        let missing = try CommandLine.run(Self.binary, ["coders", "--plugin-dir", "/nonexistent/plugins"])
        #expect(missing.status == 0)
        #expect(missing.stderr.contains("warning: --plugin-dir /nonexistent/plugins does not exist"), "\(missing.stderr)")
        for folder in ["", "plugins.d"] {
            let wrong = try CommandLine.run(Self.binary, ["coders", "--plugin-dir", folder])
            #expect(wrong.status == 2, "'\(folder)': \(wrong.stderr)")
            #expect(wrong.stderr.filter { $0 == "\n" }.count == 1, "\(wrong.stderr)")
            #expect(wrong.stderr.contains("never searched"), "\(wrong.stderr)")
        }
    }
}
