import Foundation
import Testing
import TestSupport

/// `scripts/bootstrap` judges a requirement by its Debian package and the package's own binary, never by a name on
/// PATH: a fresh machine can carry a stand-in `convert` that is not ImageMagick, and bootstrap must still install
/// ImageMagick there. The tests run it with `--dry-run`/`--check` (nothing is installed) against a copy of this
/// machine's dpkg database from which a package has been taken out or marked removed.
@Suite struct BootstrapTests {
    static let script = TestPaths.repositoryRoot + "/scripts/bootstrap"
    static let dpkgStatus = "/var/lib/dpkg/status"
    static var onDebian: Bool { FileManager.default.fileExists(atPath: dpkgStatus) }

    /// A folder holding a fake `convert` (a shell script that is not ImageMagick) and a dpkg database whose
    /// `imagemagick` stanza is changed by `edit` (nil: removed).
    static func machine(imagemagick edit: ((String) -> String)?) throws -> (folder: String, path: String) {
        let folder = try TestPaths.temporaryDirectory("imagepipe-bootstrap")
        try FileManager.default.createDirectory(atPath: folder + "/bin", withIntermediateDirectories: true)
        _ = try TestFiles.write(Array("#!/bin/sh\necho 'convert: a stand-in'\n".utf8), to: folder + "/bin/convert")
        chmod(folder + "/bin/convert", 0o755)
        let stanzas = try String(contentsOfFile: dpkgStatus, encoding: .utf8).components(separatedBy: "\n\n")
        let edited = stanzas.compactMap { stanza -> String? in
            guard stanza.hasPrefix("Package: imagemagick\n") else { return stanza }
            return edit?(stanza)
        }
        try edited.joined(separator: "\n\n").write(toFile: folder + "/status", atomically: true, encoding: .utf8)
        let path = folder + "/bin:" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        return (folder, path)
    }

    @Test(.enabled(if: onDebian, "not a Debian machine (no /var/lib/dpkg/status)"),
          arguments: ["absent", "removed, config files left"])
    func aStandInConvertDoesNotHideAMissingImageMagick(_ state: String) throws {
        // Given a machine without the imagemagick package but with a `convert` first on PATH
        let edit: ((String) -> String)? = state == "absent" ? nil : {
            $0.replacingOccurrences(of: "Status: install ok installed", with: "Status: deinstall ok config-files")
        }
        let machine = try Self.machine(imagemagick: edit)
        defer { try? FileManager.default.removeItem(atPath: machine.folder) }

        // When bootstrap plans what to install
        let result = try CommandLine.run(Self.script, ["--dry-run"], environment: [
            "PATH": machine.path, "IMAGEPIPE_BOOTSTRAP_DPKG_ADMINDIR": machine.folder])

        // Then it installs ImageMagick, and says that the stand-in is not what tests run
        #expect(result.status == 0, "\(result.stderr)")
        let plan = result.stdout.split(separator: "\n").first { $0.hasPrefix("bootstrap: would install") }
        let packages = plan.map { $0.split(separator: " ").dropFirst(3).map(String.init) } ?? []
        #expect(packages.contains("imagemagick"), "plan: \(result.stdout)")
        #expect(result.stderr.contains("\(machine.folder)/bin/convert (first 'convert' on PATH) is not ImageMagick"))
    }

    @Test(.enabled(if: onDebian && FileManager.default.isExecutableFile(atPath: "/usr/bin/convert"),
                   "ImageMagick is not installed here"))
    func installedImageMagickIsVerifiedByItsOwnBinaryNotByPATH() throws {
        // Given the real database (ImageMagick installed) and a stand-in first on PATH
        let machine = try Self.machine(imagemagick: { $0 })
        defer { try? FileManager.default.removeItem(atPath: machine.folder) }

        // When bootstrap checks every requirement
        let result = try CommandLine.run(Self.script, ["--check"], environment: ["PATH": machine.path])

        // Then ImageMagick counts as present because /usr/bin/convert prints "ImageMagick"
        let line = result.stdout.split(separator: "\n").first { $0.hasPrefix("imagemagick ") }
        #expect(line?.contains("ok (tool:/usr/bin/convert:-version:ImageMagick)") == true, "\(result.stdout)")
    }

    @Test func anUnknownOptionIsAUsageError() throws {
        let result = try CommandLine.run(Self.script, ["--frobnicate"])
        #expect(result.status == 2)
        #expect(result.stderr == "bootstrap: unknown option '--frobnicate' (try --help)\n")
    }
}
