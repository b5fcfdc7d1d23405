import Foundation
import Testing
import TestSupport

/// The transformers run under the request's memory budget on every path: a file, standard input and the batch. (The
/// stdin and batch paths once applied the chain themselves, outside the budget: the same over-budget blur was
/// refused from a file and succeeded from a pipe.)
@Suite struct TransformerLimitsTests {
    /// A 2000×2000 PNG (16 MB of RGBA8): decoding it fits a 20 MiB budget, decoding it and blurring a copy does not.
    static func bigPNG() throws -> (folder: String, png: String) {
        let folder = try TestPaths.temporaryDirectory("transformer-limits")
        let png = folder + "/big.png"
        let made = try CommandLine.run(TestPaths.imagepipeBinary, ["render", TestPaths.repositoryRoot + "/samples/badge.svg",
                                                                   "--size", "2000x2000", "--mode", "fill", "-o", png])
        try #require(made.status == 0, "\(made.stderr)")
        return (folder, png)
    }

    enum Path: String, CaseIterable, Sendable { case file, stdin, batch }

    static func run(_ path: Path, _ png: String, folder: String, extra: [String]) throws -> ProcessResult {
        let binary = TestPaths.imagepipeBinary
        switch path {
        case .file:
            return try CommandLine.run(binary, ["render", png, "--max-memory", "20M", "-o", folder + "/file.png"] + extra)
        case .stdin:
            let arguments = (["render", "-", "--max-memory", "20M", "-o", folder + "/stdin.png"] + extra).map { "'\($0)'" }
            return try CommandLine.run("/bin/sh", ["-c", "exec '\(binary)' \(arguments.joined(separator: " ")) < '\(png)'"])
        case .batch:
            return try CommandLine.run(binary, ["thumbnail", png, "--size", "2000", "--max-memory", "20M", "--no-progress",
                                                "-o", folder + "/batch-%s.png"] + extra)
        }
    }

    @Test(arguments: Path.allCases)
    func anOverBudgetChainIsRefusedOnEveryPath(_ path: Path) throws {
        let (folder, png) = try Self.bigPNG()
        // Without the chain the request fits: the refusal below is the chain's, not the decode's.
        let plain = try Self.run(path, png, folder: folder, extra: [])
        #expect(plain.status == 0, "\(path) without --blur: \(plain.stderr)")
        let blurred = try Self.run(path, png, folder: folder, extra: ["--blur", "8"])
        #expect(blurred.status != 0, "\(path): --blur 8 under --max-memory 20M must be refused")
        #expect(blurred.stderr.contains("over its budget of 20 MiB") && blurred.stderr.contains("[E5004]"), "\(path): \(blurred.stderr)")
    }
}
