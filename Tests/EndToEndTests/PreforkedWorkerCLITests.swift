import Foundation
import PipelineHost
import Testing
import TestSupport

/// The CLI's first isolated decode runs in a worker forked at start-up (PreforkedWorker) rather than a spawned
/// process, and the host leaves the sniff of an isolated coder to that worker (it never loads librsvg itself).
@Suite struct PreforkedWorkerCLITests {
    static let badge = TestPaths.repositoryRoot + "/samples/badge.svg"

    @Test func anSVGRenderUsesTheStartupForkAndMatchesInProcessPixels() throws {
        let folder = try TestPaths.temporaryDirectory("prefork")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let isolated = try CommandLine.run(TestPaths.imagepipeBinary, [
            "render", Self.badge, "--size", "96x96", "--tint", "#ff3b30", "--no-cache", "-o", folder + "/isolated.png",
        ], environment: ["IMAGEPIPE_LOG": "debug"])
        #expect(isolated.status == 0, "\(isolated.stderr)")
        #expect(isolated.stderr.contains("was forked at start-up"), "\(isolated.stderr)")
        let inProcess = try CommandLine.run(TestPaths.imagepipeBinary, [
            "render", Self.badge, "--size", "96x96", "--tint", "#ff3b30", "--no-cache", "--isolation", "in-process",
            "-o", folder + "/in-process.png",
        ], environment: ["IMAGEPIPE_LOG": "debug"])
        #expect(inProcess.status == 0, "\(inProcess.stderr)")
        #expect(!inProcess.stderr.contains("was forked at start-up"), "in-process forks no worker: \(inProcess.stderr)")
        #expect(try TestFiles.read(folder + "/isolated.png") == TestFiles.read(folder + "/in-process.png"))
    }

    /// Every isolated request of `--isolation isolated` (here a PNG, which auto mode decodes in process) also
    /// starts from the fork; a second process start would be the spawner's.
    @Test func isolatedModeServesAPNGFromTheStartupFork() throws {
        let folder = try TestPaths.temporaryDirectory("prefork-png")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try CommandLine.run(TestPaths.imagepipeBinary, [
            "render", Self.badge, "--size", "40x40", "--isolation", "in-process", "--no-cache", "-o", folder + "/a.png",
        ])
        #expect(first.status == 0, "\(first.stderr)")
        let second = try CommandLine.run(TestPaths.imagepipeBinary, [
            "render", folder + "/a.png", "--isolation", "isolated", "--no-cache", "-o", folder + "/b.png",
        ], environment: ["IMAGEPIPE_LOG": "debug"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("was forked at start-up"), "\(second.stderr)")
    }

    /// XML that is not SVG matches the SVG coder's magic; the worker's sniff declines it and the CLI reports an
    /// unknown format in one line, as an in-process sniff would.
    @Test func xmlThatIsNotSVGIsDeclinedInTheWorker() throws {
        let folder = try TestPaths.temporaryDirectory("prefork-xml")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = try TestFiles.write(Array("<?xml version=\"1.0\"?>\n<html><body>not an image</body></html>\n".utf8),
                                        to: folder + "/page.svg")
        for isolation in ["auto", "in-process"] {
            let result = try CommandLine.run(TestPaths.imagepipeBinary, [
                "render", input, "--isolation", isolation, "--no-cache", "-o", folder + "/out.png",
            ])
            #expect(result.status == 1, "\(isolation): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(isolation): \(result.stderr)")
            #expect(result.stderr.contains("[E2100]"), "\(isolation): \(result.stderr)")
        }
    }
}
