import Foundation
import PipelineHost
import Testing
import TestSupport

/// `make install` staged with DESTDIR, as a packager or an operator would use it: what lands where, a binary that
/// finds the plugins installed beside its prefix, a C plugin built out of the tree with the installed pkg-config
/// file, the per-user folder, and the one line a binary with no plugins prints. (The Debian package is checked by
/// `make deb-test`, which installs it on the machine.)
@Suite(.serialized) struct InstallTests {
    static let triplet = PluginSearchPath.multiarchTriplet

    /// A staged `scripts/install --prefix /usr/local --destdir <tmp>`; returns the staging folder.
    static func stagedInstall() throws -> String {
        let stage = try TestPaths.temporaryDirectory("imagepipe-install")
        let result = try CommandLine.run(TestPaths.repositoryRoot + "/scripts/install", ["--prefix", "/usr/local", "--destdir", stage])
        try #require(result.status == 0, "scripts/install failed: \(result.stderr)")
        return stage
    }

    /// Runs `executable` with exactly `environment` (nothing inherited: no IMAGEPIPE_* variable can leak in).
    static func runClean(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                         currentDirectory: String? = nil) throws -> ProcessResult {
        let variables = ["PATH=/usr/bin:/bin", "HOME=/nonexistent"].filter { pair in
            !environment.keys.contains(String(pair.prefix { $0 != "=" }))
        } + environment.map { "\($0.key)=\($0.value)" }.sorted()
        return try CommandLine.run("/usr/bin/env", ["-i"] + variables + [executable] + arguments, currentDirectory: currentDirectory)
    }

    static func coderIDs(_ result: ProcessResult) -> [String] {
        result.stdout.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "\"id\" : \"") ?? line.range(of: "\"id\":\"") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != "\"" })
        }.sorted()
    }

    @Test func stagedInstallPutsEveryPieceInItsFolderAndUninstallRemovesThem() throws {
        let stage = try Self.stagedInstall()
        let prefix = stage + "/usr/local"
        let plugins = try FileManager.default.contentsOfDirectory(atPath: TestPaths.pluginsDirectory).filter { $0.hasSuffix(".so") }
        #expect(!plugins.isEmpty)
        for plugin in plugins {
            #expect(FileManager.default.isExecutableFile(atPath: "\(prefix)/lib/imagepipe/1/plugins.d/\(plugin)"), "\(plugin) not installed")
        }
        for path in ["bin/imagepipe", "include/imagepipe/imagepipe.h", "include/imagepipe/coder.h", "lib/imagepipe/1/exports.map",
                     "lib/pkgconfig/imagepipe-plugin.pc", "share/man/man1/imagepipe.1.gz", "share/man/man1/imagepipe-render.1.gz",
                     "share/man/man1/imagepipe-serve.1.gz", "share/bash-completion/completions/imagepipe"] {
            #expect(FileManager.default.fileExists(atPath: "\(prefix)/\(path)"), "\(path) not installed")
        }
        let completion = try String(contentsOfFile: prefix + "/share/bash-completion/completions/imagepipe", encoding: .utf8)
        #expect(completion.contains("--key-file") && completion.contains("complete -o filenames -F _imagepipe imagepipe"))
        let bashCheck = try CommandLine.run("/bin/bash", ["-n", prefix + "/share/bash-completion/completions/imagepipe"])
        #expect(bashCheck.status == 0, "\(bashCheck.stderr)")

        let uninstall = try CommandLine.run(TestPaths.repositoryRoot + "/scripts/install",
                                            ["--uninstall", "--prefix", "/usr/local", "--destdir", stage])
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        let left = FileManager.default.enumerator(atPath: stage)?.compactMap { $0 as? String }.filter { path in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: stage + "/" + path, isDirectory: &isFolder) && !isFolder.boolValue
        } ?? []
        #expect(left.isEmpty, "left after uninstall: \(left)")
        #expect(!FileManager.default.fileExists(atPath: prefix + "/lib/imagepipe"), "the plugin folder stayed")
    }

    @Test func theInstalledBinaryFindsThePluginsOfItsPrefixWithNoVariable() throws {
        let stage = try Self.stagedInstall()
        let binary = stage + "/usr/local/bin/imagepipe"
        let expected = Self.coderIDs(try CommandLine.run(TestPaths.imagepipeBinary, ["coders", "--json"]))
        let installed = try Self.runClean(binary, ["coders", "--json"], currentDirectory: "/")
        #expect(installed.status == 0, "\(installed.stderr)")
        #expect(!expected.isEmpty && Self.coderIDs(installed) == expected)

        let listing = try Self.runClean(binary, ["plugins"], currentDirectory: "/")
        #expect(listing.stdout.contains("\(stage)/usr/local/lib/imagepipe/1/plugins.d  (system folder)"), "\(listing.stdout)")
        #expect(listing.stdout.contains("/usr/lib/\(Self.triplet)/imagepipe/1/plugins.d  (system folder"))
        #expect(listing.stdout.contains("/nonexistent/.local/share/imagepipe/1/plugins.d  (per-user folder, missing)"))

        let output = stage + "/badge.png"
        let render = try Self.runClean(binary, ["render", TestPaths.repositoryRoot + "/samples/badge.svg", "--size", "96x96", "-o", output])
        #expect(render.status == 0, "\(render.stderr)")
        #expect(try CommandLine.run(binary, ["info", output]).stdout.contains("96x"))
    }

    @Test func aBinaryWithNoPluginsSaysWhereItLookedAndWhatFixesIt() throws {
        let folder = try TestPaths.temporaryDirectory("imagepipe-bare")
        try FileManager.default.createDirectory(atPath: folder + "/bin", withIntermediateDirectories: true)
        try TestFiles.copyExecutable(TestPaths.imagepipeBinary, to: folder + "/bin/imagepipe")
        let result = try Self.runClean(folder + "/bin/imagepipe",
                                       ["render", TestPaths.repositoryRoot + "/samples/badge.svg", "-o", folder + "/out.png"],
                                       environment: ["HOME": folder])
        #expect(result.status != 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "one line, not: \(result.stderr)")
        let line = String(lines.first ?? "")
        #expect(line.contains("no imagepipe plugins found"))
        #expect(line.contains("\(folder)/lib/imagepipe/1/plugins.d (missing)"))
        #expect(line.contains("\(folder)/.local/share/imagepipe/1/plugins.d (missing)"))
        #expect(line.contains("make install") && line.contains("--plugin-dir") && line.contains("IMAGEPIPE_PLUGIN_PATH"))
        #expect(line.hasSuffix("[E1200]"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.png"))
    }

    @Test func thePerUserFolderIsSearchedBeforeTheSystemFolders() throws {
        let home = try TestPaths.temporaryDirectory("imagepipe-home")
        let userFolder = home + "/data/imagepipe/1/plugins.d"
        try FileManager.default.createDirectory(atPath: userFolder, withIntermediateDirectories: true)
        for name in ["libPNGCoder.so", "libSVGCoder.so", "libFileLoader.so"] {
            try FileManager.default.copyItem(atPath: TestPaths.pluginsDirectory + "/" + name, toPath: userFolder + "/" + name)
        }
        try FileManager.default.createDirectory(atPath: home + "/bin", withIntermediateDirectories: true)
        try TestFiles.copyExecutable(TestPaths.imagepipeBinary, to: home + "/bin/imagepipe")
        let environment = ["HOME": home, "XDG_DATA_HOME": home + "/data"]
        let coders = try Self.runClean(home + "/bin/imagepipe", ["coders", "--json"], environment: environment)
        #expect(Self.coderIDs(coders) == ["org.imagepipe.coder.png/1", "org.imagepipe.coder.svg/1"], "\(coders.stdout) \(coders.stderr)")
        let listing = try Self.runClean(home + "/bin/imagepipe", ["plugins"], environment: environment).stdout
        let user = try #require(listing.range(of: "\(userFolder)  (per-user folder)"))
        let system = try #require(listing.range(of: "/usr/local/lib/imagepipe/1/plugins.d  (system folder"))
        #expect(user.lowerBound < system.lowerBound)
        // A relative XDG_DATA_HOME is ignored (the XDG rule), falling back to ~/.local/share.
        let relative = try Self.runClean(home + "/bin/imagepipe", ["plugins"], environment: ["HOME": home, "XDG_DATA_HOME": "data"])
        #expect(relative.stdout.contains("\(home)/.local/share/imagepipe/1/plugins.d  (per-user folder, missing)"))
    }

    @Test func aCPluginBuiltOutOfTreeWithThePkgConfigFileLoads() throws {
        let stage = try Self.stagedInstall()
        let prefix = stage + "/usr/local"
        let source = try TestPaths.temporaryDirectory("imagepipe-c-plugin")
        for name in ["Makefile", "template_coder.c", "qoi_codec.c", "qoi_codec.h"] {
            try FileManager.default.copyItem(atPath: TestPaths.repositoryRoot + "/Plugins/TemplateCoder/" + name, toPath: source + "/" + name)
        }
        let make = try CommandLine.run("/usr/bin/make", ["-C", source, "IMAGEPIPE_PKG=imagepipe-plugin", "PKG_CONFIG=pkg-config --define-prefix",
                                                         "OUT=\(source)/out", "install-plugin"],
                                       environment: ["PKG_CONFIG_PATH": prefix + "/lib/pkgconfig"])
        try #require(make.status == 0, "\(make.stdout)\n\(make.stderr)")
        // It was compiled against the installed headers and linked with the installed version script, not the tree's.
        #expect(make.stdout.contains("-I\(prefix)/include") && make.stdout.contains("--version-script=\(prefix)/lib/imagepipe/1/exports.map"))
        #expect(!make.stdout.contains("Sources/PluginAPI"))
        // install-plugin put it in the pc file's plugindir, where the installed binary finds it.
        let installed = prefix + "/lib/imagepipe/1/plugins.d/libTemplateCoder.so"
        #expect(FileManager.default.fileExists(atPath: installed))
        let test = try CommandLine.run(TestPaths.imagepipeBinary, ["plugin", "test", source + "/out/libTemplateCoder.so", "--json"])
        #expect(test.status == 0, "plugin test failed: \(test.stdout.suffix(400)) \(test.stderr)")
        let coders = try Self.runClean(prefix + "/bin/imagepipe", ["coders"], currentDirectory: "/")
        #expect(coders.stdout.contains("qoi"))
    }

    @Test func serveReadsItsKeyAndSaltFromFilesAndNeverEchoesThem() throws {
        let folder = try TestPaths.temporaryDirectory("imagepipe-keyfile")
        try "  not-hex-secret-value\n".write(toFile: folder + "/bad", atomically: true, encoding: .utf8)
        let bad = try CommandLine.run(TestPaths.imagepipeBinary, ["serve", "--key-file", folder + "/bad", "--salt", "00"])
        #expect(bad.status == 2 && bad.stderr.contains("--key-file") && !bad.stderr.contains("not-hex-secret-value"), "\(bad.stderr)")
        let echoed = try CommandLine.run(TestPaths.imagepipeBinary, ["serve", "--key", "zzsecretzz", "--salt", "00"])
        #expect(echoed.status == 2 && !echoed.stderr.contains("zzsecretzz"), "\(echoed.stderr)")
        let both = try CommandLine.run(TestPaths.imagepipeBinary, ["serve", "--key", "00", "--key-file", folder + "/bad", "--salt", "00"])
        #expect(both.status == 2 && both.stderr.contains("not both"), "\(both.stderr)")
        let missing = try CommandLine.run(TestPaths.imagepipeBinary, ["serve", "--key-file", folder + "/none", "--salt", "00"])
        #expect(missing.status == 2 && missing.stderr.contains("no such file"), "\(missing.stderr)")
    }
}
