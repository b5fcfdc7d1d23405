import Foundation
import PipelineHost
import Testing
import TestSupport

/// The corpus files on which librsvg 2.54 panics, overflows its stack, segfaults or runs for more than 30 s
/// (manifest.tsv: svg rows whose reference_result says so). The CLI isolates the SVG coder by default, so each
/// render fails with one line naming the cause instead of taking the CLI down; a host with a pool carries on.
@Suite struct IsolationCLITests {
    /// Paths (relative to the corpus) of the SVG rows whose reference tool crashed or hung; nil without a corpus.
    static func crashingSVGs() throws -> [String]? {
        guard let corpus = TestPaths.corpus else { return nil }
        let manifest = try String(contentsOfFile: corpus + "/manifest.tsv", encoding: .utf8)
        let rows = manifest.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        guard let header = rows.first, let path = header.firstIndex(of: "path"), let format = header.firstIndex(of: "format"),
              let result = header.firstIndex(of: "reference_result") else { throw TestSupportError("manifest.tsv lacks columns") }
        let causes = ["CRASHED", "panic", "SIGSEGV", "stack overflow", "timeout", "did not finish"]
        return rows.dropFirst().filter { row in
            row.count > max(path, format, result) && row[format] == "svg"
                && causes.contains { row[result].localizedCaseInsensitiveContains($0) }
        }.map { String($0[path]) }
    }

    @Test(.requiresCorpus) func renderOfEachCrashingSVGFailsWithOneTypedLine() throws {
        guard let files = try Self.crashingSVGs() else { try Skip.because("../shared/corpus is absent (set IMAGEPIPE_CORPUS)", bootstrapProvides: false) }
        #expect(files.count >= 5, "\(files)")
        let output = try TestPaths.temporaryDirectory() + "/out.png"
        for file in files {
            let result = try CommandLine.run(TestPaths.imagepipeBinary, [
                "render", TestPaths.corpus! + "/" + file, "-o", output, "--timeout", "5", "--no-cache",
            ])
            let lines = result.stderr.split(separator: "\n")
            #expect(result.status == 1, "\(file): status \(result.status)")
            #expect(lines.count == 1, "\(file): \(result.stderr)")
            let line = String(lines.first ?? "")
            let typed = line.contains("crashed (SIG") && line.hasSuffix("[E6001]") || line.contains("timed out after 5 s") && line.hasSuffix("[E6002]")
            #expect(typed, "\(file): \(line)")
            #expect(!FileManager.default.fileExists(atPath: output), "\(file) left an output")
        }
    }

    /// poppler + cairo grow to ~5.4 GB on this self-referencing Type3 glyph (PDFCoder/README.md): the worker's
    /// address-space cap (the --max-memory budget, 1 GiB here, plus the worker's own 320 MiB) stops it in
    /// seconds, and the CLI says so on one line that names the file and the flag.
    @Test(.requiresCorpus) func aPDFThatEatsMemoryHitsTheWorkersCap() throws {
        guard let corpus = TestPaths.corpus else { try Skip.because("../shared/corpus is absent (set IMAGEPIPE_CORPUS)", bootstrapProvides: false) }
        let result = try CommandLine.run(TestPaths.imagepipeBinary, [
            "render", corpus + "/bad/safedocs-ContentStreamCycleType3insideType3.pdf", "-o",
            try TestPaths.temporaryDirectory() + "/out.png", "--timeout", "60", "--no-cache", "--max-memory", "1G",
        ])
        #expect(result.status == 1)
        #expect(result.stderr == "imagepipe render: \(corpus)/bad/safedocs-ContentStreamCycleType3insideType3.pdf: decoding "
                + "exceeded the isolated worker's memory limit of 1344 MiB; raise --max-memory if the file is trusted [E6003]\n")
    }

    @Test(.requiresCorpus) func aHostWithAPoolCarriesOnAfterEachCrashingSVG() throws {
        guard let files = try Self.crashingSVGs() else { try Skip.because("../shared/corpus is absent (set IMAGEPIPE_CORPUS)", bootstrapProvides: false) }
        let host = PluginHost(registry: PluginRegistry.scan(
            PluginSearchPath(directories: [try PluginSandbox.directory(with: ["libSVGCoder.so"])]), cachePath: nil))
        let pool = WorkerPool(configuration: WorkerPool.Configuration(
            executable: TestPaths.imagepipeBinary, pluginDirectories: host.registry.searchPath.entries.map(\.directory),
            registryCachePath: nil, size: 1, timeout: 5))
        defer { pool.shutdown() }
        host.coders.isolator = Isolator(pool: pool)
        let valid = Array(##"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="#0a0"/></svg>"##.utf8)
        for file in files {
            let data = Array(try Data(contentsOf: URL(fileURLWithPath: TestPaths.corpus! + "/" + file)))
            var options = DecodeOptions(thumbnailSize: PixelSize(width: 256, height: 256))
            options.sourceURL = URL(fileURLWithPath: TestPaths.corpus! + "/" + file).absoluteString
            do {
                _ = try host.coders.decode(data: data, options: options)
                Issue.record("\(file) decoded; expected a crash or a timeout")
            } catch let error as PipelineError {
                #expect([6001, 6002].contains(error.code), "\(file): \(error)")
            }
            let image = try host.coders.decode(data: valid)
            #expect(image.width == 40 && image.pixel(x: 5, y: 5) == RGBA16Pixel(r: 0, g: 170, b: 0, a: 255), "after \(file)")
        }
    }
}
