import Foundation
import Testing
import TestSupport

/// `imagepipe thumbnail` as a user runs it: folders of good, bad and unsupported files, reruns, --json, a list on
/// standard input, hostile files in the batch, an interrupted batch; and `render -` / `-o -` in a pipe.
@Suite struct ThumbnailCommandTests {
    static let binary = TestPaths.imagepipeBinary
    static let samples = TestPaths.repositoryRoot + "/samples"

    static func thumbnail(_ arguments: [String], in folder: String? = nil) throws -> ProcessResult {
        try CommandLine.run(binary, ["thumbnail"] + arguments, currentDirectory: folder)
    }

    /// Width and height from a PNG's IHDR.
    static func pngSize(_ path: String) throws -> (Int, Int)? {
        let bytes = try TestFiles.read(path)
        guard bytes.count > 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return nil }
        let be = { (o: Int) in Int(bytes[o]) << 24 | Int(bytes[o + 1]) << 16 | Int(bytes[o + 2]) << 8 | Int(bytes[o + 3]) }
        return (be(16), be(20))
    }

    static func isCompletePNG(_ path: String) -> Bool {
        guard let bytes = try? TestFiles.read(path) else { return false }
        return bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) && bytes.suffix(8) == [0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
    }

    static func files(in folder: String) throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: folder).sorted()
    }

    /// A folder with two SVGs, a PNG (made by render), a file named .png holding text, and a notes.txt.
    static func mixedFolder() throws -> String {
        let folder = try TestPaths.temporaryDirectory("thumbnail-batch")
        let input = folder + "/in"
        try FileManager.default.createDirectory(atPath: input + "/sub", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: samples + "/icon.svg", toPath: input + "/icon.svg")
        try FileManager.default.copyItem(atPath: samples + "/badge.svg", toPath: input + "/sub/badge.svg")
        #expect(try CommandLine.run(binary, ["render", samples + "/icon.svg", "--size", "300x200", "--mode", "fill",
                                             "-o", input + "/photo.png"]).status == 0)
        _ = try TestFiles.write(Array("this is not a PNG".utf8), to: input + "/broken.png")
        _ = try TestFiles.write(Array("notes".utf8), to: input + "/notes.txt")
        return folder
    }

    @Test func aFolderGivesEveryGoodOutputAndOneLinePerBadFile() throws {
        let folder = try Self.mixedFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Self.thumbnail([folder + "/in", "-r", "--size", "64,32", "--out-dir", folder + "/out", "-o", "%s-%w.png"])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(lines.first?.hasPrefix("imagepipe thumbnail: \(folder)/in/broken.png: unrecognised image format") == true)
        // notes.txt is not an image by its name: passed over, not a failure. The tree is mirrored under --out-dir.
        #expect(try Self.files(in: folder + "/out") == ["icon-32.png", "icon-64.png", "photo-32.png", "photo-64.png",
                                                         "sub", "sub/badge-32.png", "sub/badge-64.png"])
        #expect(try Self.pngSize(folder + "/out/photo-64.png")! == (64, 43))
        #expect(try Self.pngSize(folder + "/out/sub/badge-32.png")! == (32, 21))
        // A file named on the command line is always tried, whatever its name says.
        let named = try Self.thumbnail([folder + "/in/notes.txt", "--out-dir", folder + "/out2", "-o", "%s.png"])
        #expect(named.status == 1)
        #expect(named.stderr.contains("notes.txt: unrecognised image format"))
    }

    @Test func aRerunSkipsWhatIsUpToDateAndRedoesWhatChanged() throws {
        let folder = try Self.mixedFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let out = folder + "/out"
        let arguments = [folder + "/in", "--size", "48", "--out-dir", out, "-o", "%s.png", "--json"]
        #expect(try Self.thumbnail(arguments).status == 1)
        func statuses(_ result: ProcessResult) throws -> [String: String] {
            var byOutput: [String: String] = [:]
            for line in result.stdout.split(separator: "\n") {
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
                if let output = object["output"] as? String { byOutput[(output as NSString).lastPathComponent] = object["status"] as? String }
            }
            return byOutput
        }
        let again = try Self.thumbnail(arguments)
        #expect(try statuses(again) == ["icon.png": "up-to-date", "photo.png": "up-to-date"])
        // A source newer than its output, or a changed option, redoes exactly that.
        let later = Date().addingTimeInterval(5)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: folder + "/in/icon.svg")
        #expect(try statuses(try Self.thumbnail(arguments)) == ["icon.png": "written", "photo.png": "up-to-date"])
        #expect(try statuses(try Self.thumbnail(arguments + ["--tint", "red"])) == ["icon.png": "written", "photo.png": "written"])
        #expect(try statuses(try Self.thumbnail(arguments + ["--tint", "red", "--force"])) == ["icon.png": "written", "photo.png": "written"])
    }

    @Test func jsonLinesDescribeEveryOutputAndEndWithASummary() throws {
        let folder = try Self.mixedFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Self.thumbnail([folder + "/in", "-r", "--size", "40", "--out-dir", folder + "/out", "-o", "%s.png", "--json"])
        let objects = try result.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        let written = objects.filter { $0["status"] as? String == "written" }
        #expect(written.count == 3)
        for object in written {
            #expect(object["coder"] is String && object["ms"] is NSNumber && object["width"] is NSNumber)
            #expect(object["cache"] as? String == "file" && object["size"] as? String == "40x40")
        }
        let failed = objects.filter { $0["status"] as? String == "failed" }
        #expect(failed.count == 1 && (failed[0]["error"] as? String)?.contains("broken.png") == true)
        let summary = objects.last!
        #expect(summary["type"] as? String == "summary")
        #expect(summary["sources"] as? Int == 4 && summary["written"] as? Int == 3 && summary["failed"] as? Int == 1)
    }

    @Test func aListOnStandardInputAndRenderInAPipe() throws {
        let folder = try TestPaths.temporaryDirectory("thumbnail-pipe")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let list = "printf '%s\\n\\n%s\\n' \(Self.samples)/icon.svg \(Self.samples)/badge.svg"
        let batch = try CommandLine.shell("\(list) | \(Self.binary) thumbnail - --size 20 --out-dir \(folder) -o '%s.png'")
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(try Self.files(in: folder) == ["badge.png", "icon.png"])
        // render - reads the image from standard input; -o - writes it to standard output: the same bytes as files.
        let piped = try CommandLine.shell("cat \(Self.samples)/icon.svg | \(Self.binary) render - --size 30x30 --format png -o - > \(folder)/piped.png")
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(try CommandLine.run(Self.binary, ["render", Self.samples + "/icon.svg", "--size", "30x30", "-o", folder + "/file.png"]).status == 0)
        #expect(try TestFiles.read(folder + "/piped.png") == TestFiles.read(folder + "/file.png"))
        let noFormat = try CommandLine.shell("cat \(Self.samples)/icon.svg | \(Self.binary) render - -o -")
        #expect(noFormat.status == 2 && noFormat.stderr.contains("-o - (standard output) needs --format"))
    }

    @Test func severalSizesOfARasterComeFromOneDecodeWithTheSamePixelsAsSingleRenders() throws {
        let folder = try TestPaths.temporaryDirectory("thumbnail-sizes")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A GIF: a raster whose coder has no shrink-on-load, so one full decode serves every size (a PNG's or JPEG's
        // sizes would each come from a decode reduced for the largest box).
        let source = folder + "/source.gif"
        #expect(try CommandLine.run(Self.binary, ["render", Self.samples + "/badge.svg", "--size", "600x400", "-o", source]).status == 0)
        #expect(try Self.thumbnail([source, "--size", "100,50x0", "-o", folder + "/t-%z.png"]).status == 0)
        for (size, name) in [("100x100", "t-100x100.png"), ("50x0", "t-50x0.png")] {
            #expect(try CommandLine.run(Self.binary, ["render", source, "--size", size, "-o", folder + "/r.png"]).status == 0)
            #expect(try TestFiles.read(folder + "/" + name) == TestFiles.read(folder + "/r.png"), "size \(size)")
        }
    }

    @Test func everyPageOfADocumentAndTemplateMistakes() throws {
        let folder = try TestPaths.temporaryDirectory("thumbnail-pages")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pdf = Self.samples + "/report.pdf"
        let result = try Self.thumbnail([pdf, "--pages", "all", "--size", "64", "--out-dir", folder, "-o", "%s-%p.png"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.files(in: folder) == ["report-0.png", "report-1.png"])
        let clipped = try Self.thumbnail([pdf, "--pages", "1-9", "--size", "64", "--out-dir", folder + "/c", "-o", "%s-%p.png"])
        #expect(clipped.status == 0)
        #expect(try Self.files(in: folder + "/c") == ["report-1.png"])
        let none = try Self.thumbnail([pdf, "--pages", "5", "--size", "64", "--out-dir", folder + "/n", "-o", "%s.png"])
        #expect(none.status == 1 && none.stderr.contains("none of the pages --pages 5 exists (the source has 2 pages"))
        let noPage = try Self.thumbnail([pdf, "--pages", "all", "-o", folder + "/%s.png"])
        #expect(noPage.status == 2 && noPage.stderr.contains("add %p"))
        let noSize = try Self.thumbnail([pdf, "--size", "64,128", "-o", folder + "/%s.png"])
        #expect(noSize.status == 2 && noSize.stderr.contains("add %z"))
    }

    @Test(.enabled(if: CommandLine.hasTool("convert"))) func everyFrameOfAnAnimationAtEverySize() throws {
        let folder = try TestPaths.temporaryDirectory("thumbnail-frames")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try CommandLine.shell("convert -size 40x30 xc:red xc:lime xc:blue -loop 0 \(folder)/a.gif").status == 0)
        let result = try Self.thumbnail([folder + "/a.gif", "--frames", "all", "--size", "20,10", "--out-dir", folder + "/out",
                                         "-o", "%s-%p-%w.png"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.files(in: folder + "/out") == ["a-0-10.png", "a-0-20.png", "a-1-10.png", "a-1-20.png", "a-2-10.png", "a-2-20.png"])
        #expect(try Self.pngSize(folder + "/out/a-2-20.png")! == (20, 15))
    }

    @Test func twoSourcesNeverShareAnOutputAndNoOutputReplacesItsSource() throws {
        let folder = try TestPaths.temporaryDirectory("thumbnail-collide")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/a", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/b", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.samples + "/icon.svg", toPath: folder + "/a/x.svg")
        try FileManager.default.copyItem(atPath: Self.samples + "/badge.svg", toPath: folder + "/b/x.svg")
        let result = try Self.thumbnail([folder + "/a/x.svg", folder + "/b/x.svg", "--size", "16", "-o", folder + "/%s.png", "--jobs", "1"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("is also the output of \(folder)/a/x.svg in this batch"))
        let own = try Self.thumbnail([folder + "/a/x.svg", "--format", "svg", "-o", "%s"])
        #expect(own.status != 0)
    }

    @Test(.requiresCorpus) func hostileFilesFailAloneWhileTheRestOfTheBatchCompletes() throws {
        guard let corpus = TestPaths.corpus else { try Skip.because("../shared/corpus is absent", bootstrapProvides: false) }
        let folder = try TestPaths.temporaryDirectory("thumbnail-hostile")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bad = try FileManager.default.contentsOfDirectory(atPath: corpus + "/bad")
            .filter { $0.hasPrefix("librsvg-") || $0.hasPrefix("made-svg") }.sorted().map { corpus + "/bad/" + $0 }
        #expect(bad.count >= 5)
        let sources = bad + [Self.samples + "/icon.svg"]
        let started = Date()
        let result = try Self.thumbnail(sources + ["--size", "64", "--out-dir", folder, "-o", "%s.png", "--timeout", "10"])
        #expect(Date().timeIntervalSince(started) < 60)
        #expect(result.status == 0 || result.status == 1)
        #expect(Self.isCompletePNG(folder + "/icon.png"))
        for line in result.stderr.split(separator: "\n") {
            #expect(line.hasPrefix("imagepipe thumbnail: \(corpus)/bad/"), "\(line)")
        }
    }

    @Test func anInterruptedBatchLeavesNoPartialOutputAndNoWorker() throws {
        let folder = try TestPaths.temporaryDirectory("thumbnail-interrupt")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
        for index in 0..<120 {
            try FileManager.default.copyItem(atPath: Self.samples + "/badge.svg", toPath: folder + "/in/b\(index).svg")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["thumbnail", folder + "/in", "--size", "1000", "--out-dir", folder + "/out", "-o", "%s.png"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Interrupted once outputs are being written and workers are busy.
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, ((try? FileManager.default.contentsOfDirectory(atPath: folder + "/out"))?.count ?? 0) < 3 {
            usleep(20_000)
        }
        let workers = Self.children(of: process.processIdentifier)
        #expect(!workers.isEmpty)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        usleep(300_000)
        let outputs = try FileManager.default.contentsOfDirectory(atPath: folder + "/out")
        #expect(outputs.count < 120)
        #expect(outputs.allSatisfy { !$0.contains(".imagepipe-") }, "\(outputs.filter { $0.contains(".imagepipe-") })")
        #expect(outputs.allSatisfy { Self.isCompletePNG(folder + "/out/" + $0) })
        for pid in workers { #expect(!Self.isRunning(pid), "worker \(pid) outlived the batch") }
        // The rerun resumes: what was written is up to date, the rest is done.
        let rerun = try CommandLine.run(Self.binary, ["thumbnail", folder + "/in", "--size", "1000", "--out-dir", folder + "/out",
                                                      "-o", "%s.png", "--json"])
        #expect(rerun.status == 0)
        #expect(rerun.stdout.components(separatedBy: "\"status\":\"up-to-date\"").count - 1 == outputs.count)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/out").count == 120)
    }

    static func children(of pid: Int32) -> [Int32] {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8) else { return [] }
        var all: [Int32] = []
        for tid in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            let list = (try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/children", encoding: .utf8)) ?? ""
            all += list.split(separator: " ").compactMap { Int32($0) }
        }
        return all.isEmpty ? text.split(separator: " ").compactMap { Int32($0) } : all
    }

    /// Alive and not a zombie (a zombie waits for a reaper that a container's PID 1 may never be; it runs nothing).
    static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(close, offsetBy: 2)]
        return state != "Z" && state != "X"
    }
}
