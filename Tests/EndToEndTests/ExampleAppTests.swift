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

    /// Clones the repository at HEAD into `<folder>/imagepipe`, tags it, copies the example beside it and builds it.
    static func buildExample(in folder: String) throws -> String {
        let clone = folder + "/imagepipe"
        let git = try CommandLine.run("/usr/bin/git", ["clone", "-q", TestPaths.repositoryRoot, clone])
        try #require(git.status == 0, "git clone: \(git.stderr)")
        let tag = try CommandLine.run("/usr/bin/git", ["-C", clone, "tag", HostVersion.string])
        try #require(tag.status == 0, "git tag: \(tag.stderr)")
        let app = folder + "/app"
        try FileManager.default.copyItem(atPath: clone + "/Examples/ThumbnailService", toPath: app)
        let arguments = (swift == "/usr/bin/env" ? ["swift"] : []) + ["build", "-c", "debug", "--package-path", app]
        let build = try CommandLine.run(swift, arguments, environment: ["IMAGEPIPE_GIT_URL": "file://" + clone])
        try #require(build.status == 0, "the example did not build:\n\(build.stdout.suffix(2000))\n\(build.stderr.suffix(2000))")
        // It resolved the dependency by version, from the tag.
        let resolved = try String(contentsOfFile: app + "/Package.resolved", encoding: .utf8)
        #expect(resolved.contains("\"version\" : \"\(HostVersion.string)\""), "\(resolved)")
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
}
