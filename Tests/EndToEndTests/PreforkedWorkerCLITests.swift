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

    /// The start-up worker gets its settings before the host reads its registry, and finds the plugin the source's
    /// extension names in the registry cache by itself (PreloadHint), so it is ready with that coder open. A source
    /// whose name misleads (an SVG named .pdf) makes it open the PDF coder for nothing, and still decodes with the
    /// coder sniffing chose, to the pixels of an in-process render.
    @Test func theStartupWorkerOpensTheNamedPluginAndAMisnamedSourceStillDecodes() throws {
        let folder = try TestPaths.temporaryDirectory("prefork-hint")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Its own registry cache, written by the first run's host: the worker's guess reads only what a cache knows.
        let environment = ["IMAGEPIPE_LOG": "debug", "IMAGEPIPE_REGISTRY_CACHE": folder + "/registry"]
        func render(_ source: String, _ output: String, _ extra: [String] = []) throws -> ProcessResult {
            try CommandLine.run(TestPaths.imagepipeBinary, ["render", source, "--size", "64x64", "--no-cache", "-o", folder + "/" + output] + extra,
                                environment: environment)
        }
        let cold = try render(Self.badge, "cold.png")
        #expect(cold.status == 0, "\(cold.stderr)")
        let warm = try render(Self.badge, "warm.png")
        #expect(warm.status == 0, "\(warm.stderr)")
        #expect(warm.stderr.contains("is ready with coders org.imagepipe.coder.svg/1 open"), "\(warm.stderr)")

        let misnamed = try TestFiles.write(try TestFiles.read(Self.badge), to: folder + "/badge.pdf")
        let guessed = try render(misnamed, "misnamed.png")
        #expect(guessed.status == 0, "\(guessed.stderr)")
        #expect(guessed.stderr.contains("is ready with coders org.imagepipe.coder.pdf/1 open"), "\(guessed.stderr)")
        let inProcess = try render(Self.badge, "in-process.png", ["--isolation", "in-process"])
        #expect(inProcess.status == 0, "\(inProcess.stderr)")
        #expect(try TestFiles.read(folder + "/misnamed.png") == TestFiles.read(folder + "/in-process.png"))
        #expect(try TestFiles.read(folder + "/warm.png") == TestFiles.read(folder + "/in-process.png"))
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

    /// No worker or start-up fork outlives the CLI, whatever the outcome: an orphan would be reparented to PID 1,
    /// and a container's PID 1 often reaps nothing. python3 runs the CLI as a child subreaper, so that any orphan
    /// comes to it instead, and counts what is left (alive, or a zombie) after the CLI has exited.
    @Test(arguments: [
        ["--size", "64x64"],  // SVG: the start-up fork serves the decode
        ["--size", "64x64", "--isolation", "isolated"],
        ["--size", "0x0"],  // a usage error after the fork: the fork is never used
    ]) func nothingOutlivesTheCLI(_ extra: [String]) throws {
        let folder = try TestPaths.temporaryDirectory("prefork-orphans")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = """
            import ctypes, os, subprocess, sys, time
            ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
            subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.3)  # an orphan still dying becomes a zombie of this process meanwhile
            left = 0
            while True:
                try:
                    pid, _ = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                left += 1
                if pid == 0:
                    break
            print(left)
            """
        for source in [Self.badge, TestPaths.repositoryRoot + "/samples/report.pdf"] {
            let result = try CommandLine.run("/usr/bin/python3", ["-c", script, TestPaths.imagepipeBinary, "render", source,
                                                                  "--no-cache", "-o", folder + "/out.png"] + extra)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(source) \(extra): \(result.stdout)")
        }
    }
}
