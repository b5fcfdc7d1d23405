import Foundation
import Testing
import TestSupport

/// `render` writes beside the output and renames into place: the output path holds the old file or the whole new
/// one, never a part; links and read-only files are not replaced without --force; a replaced file keeps its mode.
@Suite struct OutputReplacementTests {
    static let binary = TestPaths.imagepipeBinary
    static let icon = TestPaths.repositoryRoot + "/samples/icon.svg"

    static func render(_ arguments: [String]) throws -> ProcessResult {
        try CommandLine.run(binary, ["render"] + arguments)
    }

    static func isCompletePNG(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) && bytes.suffix(8) == [0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
    }

    /// Temporary files a render leaves beside its output (none after a render that ran to its end).
    static func leftovers(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(".imagepipe-") }
    }

    @Test func aFailedRenderKeepsTheOldFileAndLeavesNothingBeside() throws {
        let folder = try TestPaths.temporaryDirectory("output-replace")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let out = try TestFiles.write(Array("old contents".utf8), to: folder + "/out.png")
        let bad = try TestFiles.write(Array("<svg><rect".utf8), to: folder + "/bad.svg")
        #expect(try Self.render([bad, "-o", out]).status == 1)
        #expect(try TestFiles.read(out) == Array("old contents".utf8))
        #expect(try Self.leftovers(in: folder).isEmpty)
    }

    @Test func aReplacedFileKeepsItsMode() throws {
        let folder = try TestPaths.temporaryDirectory("output-replace")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let out = try TestFiles.write([0], to: folder + "/out.png")
        chmod(out, 0o600)
        #expect(try Self.render([Self.icon, "-o", out]).status == 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: out)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(Self.isCompletePNG(try TestFiles.read(out)))
    }

    @Test func aSymbolicLinkIsNotFollowedUnlessForced() throws {
        let folder = try TestPaths.temporaryDirectory("output-replace")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let target = try TestFiles.write(Array("precious".utf8), to: folder + "/target.png")
        let link = folder + "/link.png"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let refused = try Self.render([Self.icon, "-o", link])
        #expect(refused.status == 1)
        #expect(refused.stderr == "imagepipe render: \(link) is a symbolic link; not writing through it into another file (--force replaces the file it points to)\n")
        #expect(try TestFiles.read(target) == Array("precious".utf8))
        // --force keeps the link and replaces what it points to, atomically.
        #expect(try Self.render([Self.icon, "-o", link, "--force"]).status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(Self.isCompletePNG(try TestFiles.read(target)))
    }

    @Test func aReadOnlyFileIsNotReplacedUnlessForced() throws {
        let folder = try TestPaths.temporaryDirectory("output-replace")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let out = try TestFiles.write(Array("read-only".utf8), to: folder + "/out.png")
        chmod(out, 0o444)
        let refused = try Self.render([Self.icon, "-o", out])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("is read-only; not replacing it (--force replaces it)"), "\(refused.stderr)")
        #expect(try TestFiles.read(out) == Array("read-only".utf8))
        #expect(try Self.render([Self.icon, "-o", out, "--force"]).status == 0)
        #expect(Self.isCompletePNG(try TestFiles.read(out)))
    }

    /// SIGKILL at several moments of a large render (during the decode, the encode and the write) leaves the old
    /// file or the complete new one at the output path, never a truncated file.
    @Test(.timeLimit(.minutes(3))) func sigkillNeverLeavesAPartialOutput() throws {
        let folder = try TestPaths.temporaryDirectory("output-replace")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = folder + "/source.png"
        #expect(try Self.render([Self.icon, "--size", "1500x1500", "-o", source]).status == 0)
        let out = folder + "/out.png"
        let old = Array("the old file".utf8)
        var outcomes: [String: Int] = [:]
        for delay in [0.05, 0.15, 0.3, 0.5, 0.8, 1.2, 2.0, -1] {
            _ = try TestFiles.write(old, to: out)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.binary)
            process.arguments = ["render", source, "--size", "6000x6000", "--upscale", "-o", out]
            process.standardError = FileHandle.nullDevice
            try process.run()
            if delay < 0 {
                // Kill as soon as the temporary file appears: the likeliest moment to catch the write itself.
                let deadline = Date().addingTimeInterval(30)
                while process.isRunning, Date() < deadline, try Self.leftovers(in: folder).isEmpty { usleep(200) }
            } else {
                usleep(UInt32(delay * 1_000_000))
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let bytes = try TestFiles.read(out)
            let outcome = bytes == old ? "old" : Self.isCompletePNG(bytes) ? "new" : "PARTIAL"
            outcomes[outcome, default: 0] += 1
            #expect(outcome != "PARTIAL", "killed after \(delay) s: \(bytes.count) bytes that are neither file")
            for leftover in try Self.leftovers(in: folder) { try FileManager.default.removeItem(atPath: folder + "/" + leftover) }
        }
        print("SIGKILL during a 6000x6000 render: \(outcomes)")
        #expect(outcomes["old", default: 0] > 0)
    }

    @Test func sigtermDuringTheWriteRemovesTheTemporaryFile() throws {
        let folder = try TestPaths.temporaryDirectory("output-replace")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = folder + "/source.png"
        #expect(try Self.render([Self.icon, "--size", "1500x1500", "-o", source]).status == 0)
        let out = folder + "/out.png"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["render", source, "--size", "6000x6000", "--upscale", "-o", out]
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline, try Self.leftovers(in: folder).isEmpty { usleep(200) }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(try Self.leftovers(in: folder).isEmpty, "a temporary file survived SIGTERM")
        if let bytes = try? TestFiles.read(out) { #expect(Self.isCompletePNG(bytes)) }
    }
}
