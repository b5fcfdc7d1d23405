import Foundation
import Testing
import TestSupport

/// Follows "Write a plugin in 5 minutes" (Templates/SwiftPlugin/README.md) literally: the shell block of that section
/// is run as it stands, from the repository root, with HOME pointed at a fresh folder.
///
/// SLOW: it builds the template package out of tree with `swift build -c release` (up to ~2 minutes on a cold cache).
/// It needs the main package to export the PluginAPI and PluginKit library products the template depends on.
@Suite struct SwiftTemplateTests {
    static let readme = TestPaths.repositoryRoot + "/Templates/SwiftPlugin/README.md"

    /// The template depends on these products of the main package.
    static var mainPackageExportsPluginKit: Bool {
        let manifest = (try? String(contentsOfFile: TestPaths.repositoryRoot + "/Package.swift", encoding: .utf8)) ?? ""
        return manifest.contains(#".library(name: "PluginKit""#) && manifest.contains(#".library(name: "PluginAPI""#)
    }

    /// The first ```sh block after the "Write a plugin in 5 minutes" heading.
    static func quickStartScript() throws -> String {
        let text = try String(contentsOfFile: readme, encoding: .utf8)
        let section = try #require(text.range(of: "## Write a plugin in 5 minutes"), "the README lost its quick-start section")
        let rest = text[section.upperBound...]
        let open = try #require(rest.range(of: "```sh\n"))
        let close = try #require(rest[open.upperBound...].range(of: "```"))
        return String(rest[open.upperBound..<close.lowerBound])
    }

    @Test(.enabled(if: mainPackageExportsPluginKit,
                   "Package.swift does not yet export the PluginAPI and PluginKit library products the template needs"),
          .timeLimit(.minutes(5)))
    func theQuickStartWorksAsWritten() throws {
        // Given the quick-start block and an empty home
        let script = try Self.quickStartScript()
        #expect(script.contains("swift build -c release --package-path Templates/SwiftPlugin"))
        let home = try TestPaths.temporaryDirectory("imagepipe-template-home")

        // When it runs as written, from the repository root
        let result = try CommandLine.run("/bin/bash", ["-euo", "pipefail", "-c", script],
                                         environment: ["HOME": home, "XDG_DATA_HOME": home + "/.local/share",
                                                       "IMAGEPIPE_REGISTRY_CACHE": home + "/registry.json"],
                                         currentDirectory: TestPaths.repositoryRoot)

        // Then every step succeeded: built, tested clean, listed, rendered and read back
        #expect(result.status == 0, "stdout:\n\(result.stdout)\nstderr:\n\(result.stderr)")
        #expect(result.stdout.contains("0 failed, 0 crashed, 0 timed out"), "the plugin test passes")
        #expect(result.stdout.contains("passed    cache.operations [org.example.cache.memory/1]"),
                "the template's cache, built by PluginKit's CacheTable, passes the tester's cache checks")
        #expect(result.stdout.contains("org.example.coder.farbfeld/1  farbfeld"), "imagepipe coders lists it")
        #expect(result.stdout.contains("format:") && result.stdout.contains("farbfeld"), "info reads the rendered file back")
        #expect(FileManager.default.fileExists(atPath: home + "/.local/share/imagepipe/1/plugins.d/libFarbfeldCoder.so"))
        let rendered = try Data(contentsOf: URL(fileURLWithPath: home + "/icon.ff"))
        #expect(rendered.prefix(8) == Data("farbfeld".utf8))
        #expect(rendered.count == 16 + 64 * 64 * 8)
    }
}
