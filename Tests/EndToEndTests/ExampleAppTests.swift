import Foundation
import PipelineHost
import Testing
import TestSupport

/// Examples/ThumbnailService as an app author gets it: a package depending on imagepipe by version through a git
/// URL (here a clone of this commit, tagged with the host's version), built with SwiftPM, run with no imagepipe
/// variable, its plugins in a standard folder (the per-user one of a temporary HOME; `make deb-test` runs it against
/// the system folder of the installed package).
@Suite(.serialized) struct ExampleAppTests {
    /// The swift driver that is building these tests (found beside the toolchain's swift-build, else on PATH).
    static var swift: String {
        for candidate in ["/opt/swift/usr/bin/swift", "/usr/bin/swift"] where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return "/usr/bin/env"
    }

    /// Clones the repository at HEAD (what is committed) into `<folder>/imagepipe` and tags it with the host's version.
    static func taggedClone(in folder: String) throws -> String {
        let clone = folder + "/imagepipe"
        let git = try CommandLine.run("/usr/bin/git", ["clone", "-q", TestPaths.repositoryRoot, clone])
        try #require(git.status == 0, "git clone: \(git.stderr)")
        let tag = try CommandLine.run("/usr/bin/git", ["-C", clone, "tag", ImagepipeVersion.string])
        try #require(tag.status == 0, "git tag: \(tag.stderr)")
        return clone
    }

    /// `swift build -c debug` of the package at `path` with `environment`; fails the test with the build's output.
    static func build(_ path: String, environment: [String: String]) throws {
        let arguments = (swift == "/usr/bin/env" ? ["swift"] : []) + ["build", "-c", "debug", "--package-path", path]
        let build = try CommandLine.run(swift, arguments, environment: environment)
        try #require(build.status == 0, "\(path) did not build:\n\(build.stdout.suffix(2000))\n\(build.stderr.suffix(2000))")
    }

    /// Copies the example out of a tagged clone and builds it against that clone, by version.
    static func buildExample(in folder: String) throws -> String {
        let clone = try taggedClone(in: folder)
        let app = folder + "/app"
        try FileManager.default.copyItem(atPath: clone + "/Examples/ThumbnailService", toPath: app)
        try build(app, environment: ["IMAGEPIPE_GIT_URL": "file://" + clone])
        // It resolved the dependency by version, from the tag.
        let resolved = try String(contentsOfFile: app + "/Package.resolved", encoding: .utf8)
        #expect(resolved.contains("\"version\" : \"\(ImagepipeVersion.string)\""), "\(resolved)")
        return app + "/.build/debug/ThumbnailService"
    }

    @Test func theExampleAppFindsPluginsInAStandardFolderWithNoVariable() throws {
        let folder = try TestPaths.temporaryDirectory("imagepipe-example")
        let app = try Self.buildExample(in: folder)

        let images = folder + "/images"
        try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: TestPaths.repositoryRoot + "/samples/icon.svg", toPath: images + "/icon.svg")
        let origin = try TestHTTPServer(root: images)
        defer { origin.stop() }
        let output = folder + "/thumbs"
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        let sources = [TestPaths.repositoryRoot + "/samples/badge.svg", origin.url("/icon.svg")]

        // No plugin anywhere standard yet: the library's error says where it looked.
        let bareHome = folder + "/bare-home"
        try FileManager.default.createDirectory(atPath: bareHome, withIntermediateDirectories: true)
        let bare = try InstallTests.runClean(app, sources + ["--out", output], environment: ["HOME": bareHome], currentDirectory: folder)
        #expect(bare.status == 1)
        #expect(bare.stderr.contains("no imagepipe plugins found") && bare.stderr.contains("\(bareHome)/.local/share/imagepipe/1/plugins.d (missing)"),
                "\(bare.stderr)")

        // The plugins in the per-user folder: found with no IMAGEPIPE_* variable.
        let home = folder + "/home"
        let plugins = home + "/.local/share/imagepipe/1/plugins.d"
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: TestPaths.pluginsDirectory) where name.hasSuffix(".so") {
            try FileManager.default.copyItem(atPath: TestPaths.pluginsDirectory + "/" + name, toPath: plugins + "/" + name)
        }
        let run = try InstallTests.runClean(app, sources + ["--out", output], environment: ["HOME": home], currentDirectory: folder)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("badge.svg -> \(output)/thumbnail-0.png 64x43"), "\(run.stdout)")
        #expect(run.stdout.contains("icon.svg -> \(output)/thumbnail-1.png 64x64"), "\(run.stdout)")
        #expect(try origin.requestCount("/icon.svg") == 1)
        let info = try CommandLine.run(TestPaths.imagepipeBinary, ["info", output + "/thumbnail-1.png"])
        #expect(info.stdout.contains("64x64"), "\(info.stdout)")
    }

    /// Templates/SwiftPlugin built with no source tree around it: PluginKit from the tagged repository by version,
    /// the version script and the plugin folder from a staged install's pkg-config file.
    @Test func theSwiftTemplateBuildsAgainstAStagedInstall() throws {
        let folder = try TestPaths.temporaryDirectory("imagepipe-swift-plugin")
        let clone = try Self.taggedClone(in: folder)
        let prefix = try InstallTests.stagedInstall() + "/usr/local"
        func pkgConfig(_ variable: String) throws -> String {
            let result = try CommandLine.run("/usr/bin/pkg-config", ["--define-prefix", "--variable=\(variable)", "imagepipe-plugin"],
                                             environment: ["PKG_CONFIG_PATH": prefix + "/lib/pkgconfig"])
            try #require(result.status == 0, "pkg-config: \(result.stderr)")
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let exportsMap = try pkgConfig("versionscript"), pluginFolder = try pkgConfig("plugindir")
        #expect(exportsMap == prefix + "/lib/imagepipe/1/exports.map" && pluginFolder == prefix + "/lib/imagepipe/1/plugins.d")

        let plugin = folder + "/MyPlugin"
        try FileManager.default.copyItem(atPath: clone + "/Templates/SwiftPlugin", toPath: plugin)
        try Self.build(plugin, environment: ["IMAGEPIPE_GIT_URL": "file://" + clone, "IMAGEPIPE_EXPORTS_MAP": exportsMap])
        let resolved = try String(contentsOfFile: plugin + "/Package.resolved", encoding: .utf8)
        #expect(resolved.contains("\"version\" : \"\(ImagepipeVersion.string)\""), "PluginKit by version: \(resolved)")
        let library = plugin + "/.build/debug/libFarbfeldCoder.so"
        // Linked with the installed version script: the entry is its only exported symbol.
        let symbols = try CommandLine.run("/usr/bin/nm", ["-D", "--defined-only", library])
        let exported = symbols.stdout.split(separator: "\n").filter { $0.split(separator: " ").dropFirst().first?.first?.isUppercase == true }
        #expect(exported.count == 1 && exported.first?.hasSuffix(" imagepipe_plugin_entry") == true, "\(exported)")

        try FileManager.default.copyItem(atPath: library, toPath: pluginFolder + "/libFarbfeldCoder.so")
        let coders = try InstallTests.runClean(prefix + "/bin/imagepipe", ["coders"], currentDirectory: "/")
        #expect(coders.stdout.contains("org.example.coder.farbfeld/1"), "\(coders.stdout) \(coders.stderr)")
    }
}
