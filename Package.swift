// swift-tools-version:6.0
//
// imagepipe — an image-loading and rendering pipeline whose coders, loaders and caches are plugins.
//
// Table of contents
//   Sources/PluginAPI        the versioned C plugin ABI (headers only): the one thing host and plugins share
//   Sources/PluginKit        Swift helpers that turn Swift code into the ABI's static C tables (linked into each Swift plugin)
//   Sources/PipelineHost     the host library: plugin registry, coders/loaders/caches managers, image manager, processing
//   Sources/imagepipe        the command-line tool
//   Sources/PluginTester     the plugin tester behind `imagepipe plugin test` (checks, harness, report)
//   Sources/VersionedStructs the one rule for reading a versioned ABI struct (host, PluginKit, tester)
//   Sources/HostGeometry     the host's placement, offered to plugins as ip_host.place
//   Sources/S3Client         the S3 protocol (SigV4 exchanges, uploads) shared by the S3Loader and S3Cache plugins
//   Sources/BoxShrink        block averages of rows as they are decoded, and of decoded planes (shrink-on-load): PNG, TIFF, AVIF
//   Plugins/<Name>/Sources   one dynamic library per plugin (plus its C glue or system-library targets)
//   Plugins/<Name>/Tests     that plugin's tests; they load only that plugin's .so from plugins.d
//   Plugins/TemplateCoder    a plugin in plain C, built by the Makefile with cc (not by SwiftPM)
//   Tests/                   host unit tests, end-to-end tests of the CLI, shared test support
import Foundation
import PackageDescription

/// Absolute path of this package, for linker flags that name files in the tree.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path

/// Every plugin exports only its entry symbol and can never be unloaded (../shared/PLATFORM-NOTES.md, outside this tree: a Swift plugin
/// unloaded by dlclose crashes the process at the next type lookup).
let pluginLinkerSettings: [LinkerSetting] = [
    .unsafeFlags([
        "-Xlinker", "--version-script=\(packageRoot)/Plugins/exports.map",
        "-Xlinker", "-z", "-Xlinker", "nodelete",
    ])
]

/// Plugin `name` lives in Plugins/<name>/Sources/<name> and becomes lib<name>.so.
func pluginTarget(_ name: String, dependencies: [Target.Dependency]) -> Target {
    .target(
        name: name,
        dependencies: ["PluginAPI", "PluginKit"] + dependencies,
        path: "Plugins/\(name)/Sources/\(name)",
        linkerSettings: pluginLinkerSettings)
}

func pluginTests(_ name: String) -> Target {
    .testTarget(name: "\(name)Tests", dependencies: ["PipelineHost", "TestSupport"], path: "Plugins/\(name)/Tests")
}

func systemLibrary(_ name: String, pkgConfig: String, apt: [String]) -> Target {
    .systemLibrary(name: name, path: "Sources/System/\(name)", pkgConfig: pkgConfig, providers: [.apt(apt)])
}

/// Every plugin declares what it needs in its own folder (Plugins/<Name>/plugin.conf, see Plugins/README.md), so
/// adding one touches nothing outside that folder. (SwiftPM caches this manifest's result by its text and the
/// environment; the Makefile adds a digest of the plugin.conf files, IMAGEPIPE_PLUGIN_CONFS, to the environment.)
/// Each line is "key: value"; this reads `system-library:` (a C library module in Plugins/<Name>/Sources/<Module>,
/// its pkg-config name or "-" for none, its Debian packages), `c-target:` (a C target of the plugin's own, in
/// Plugins/<Name>/Sources/<Target>, and its dependencies), `depends:` (the plugin target's dependencies) and
/// `kind: c` (the plugin itself is a C target, without the Swift plugin kit).
struct DeclaredPlugin {
    let name: String
    var systemLibraries: [(module: String, pkgConfig: String?, apt: [String])] = []
    var cTargets: [(name: String, dependencies: [String])] = []
    var dependencies: [String] = []
    var isC = false

    static func all() -> [DeclaredPlugin] {
        let folder = packageRoot + "/Plugins"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.sorted().compactMap { name in
            guard let text = try? String(contentsOfFile: "\(folder)/\(name)/plugin.conf", encoding: .utf8) else { return nil }
            var plugin = DeclaredPlugin(name: name)
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2 else { continue }
                let words = parts[1].split(separator: " ").map(String.init)
                switch parts[0] {
                case "system-library" where words.count >= 2:
                    plugin.systemLibraries.append((words[0], words[1] == "-" ? nil : words[1], Array(words.dropFirst(2))))
                case "c-target" where !words.isEmpty: plugin.cTargets.append((words[0], Array(words.dropFirst())))
                case "depends": plugin.dependencies += words
                case "kind": plugin.isC = words == ["c"]
                default: continue
                }
            }
            return plugin
        }
    }

    var targets: [Target] {
        let libraries: [Target] = systemLibraries.map { library in
            .systemLibrary(name: library.module, path: "Plugins/\(name)/Sources/\(library.module)", pkgConfig: library.pkgConfig,
                           providers: [.apt(library.apt)])
        }
        let glue: [Target] = cTargets.map { target in
            .target(name: target.name, dependencies: target.dependencies.map { .target(name: $0) }, path: "Plugins/\(name)/Sources/\(target.name)")
        }
        let plugin: Target = isC
            ? .target(name: name, dependencies: ["PluginAPI"] + dependencies.map { .target(name: $0) }, path: "Plugins/\(name)/Sources/\(name)",
                      linkerSettings: pluginLinkerSettings)
            : pluginTarget(name, dependencies: dependencies.map { .target(name: $0) })
        return libraries + glue + [plugin, pluginTests(name)]
    }
}
let declaredPlugins = DeclaredPlugin.all()

let package = Package(
    name: "imagepipe",
    products: [
        .executable(name: "imagepipe", targets: ["imagepipe"]),
        .library(name: "PipelineHost", targets: ["PipelineHost"]),
        // What an out-of-tree Swift plugin depends on (Templates/SwiftPlugin): the C ABI and the Swift plugin kit.
        .library(name: "PluginAPI", targets: ["PluginAPI"]),
        .library(name: "PluginKit", targets: ["PluginKit"]),
    ] + declaredPlugins.map { .library(name: $0.name, type: .dynamic, targets: [$0.name]) },
    targets: [
        // The ABI and its helpers.
        .target(name: "PluginAPI", path: "Sources/PluginAPI"),
        .target(name: "PluginKit", dependencies: ["PluginAPI", "VersionedStructs"], path: "Sources/PluginKit"),
        // The one rule for reading a versioned struct from the other side (host, PluginKit and the tester).
        .target(name: "VersionedStructs", dependencies: ["PluginAPI"], path: "Sources/VersionedStructs"),

        // The host and the CLI.
        .target(name: "PipelineHost", dependencies: ["PluginAPI", "VersionedStructs", "HostGeometry", "CLCMS2"],
                path: "Sources/PipelineHost"),
        // The host's placement (fit / fill / aspect-fill), offered to plugins as the ip_host.place service.
        .target(name: "HostGeometry", dependencies: ["PluginAPI"], path: "Sources/HostGeometry"),
        .executableTarget(name: "imagepipe", dependencies: ["PipelineHost", "PluginAPI", "PluginTester", "HTTPServerShim", "OpenBeneath"],
                          path: "Sources/imagepipe"),
        // The plugin tester (`imagepipe plugin test`): every check in a child process, as clap-validator beside CLAP.
        .target(name: "PluginTester", dependencies: ["PipelineHost", "PluginAPI", "VersionedStructs"], path: "Sources/PluginTester"),
        // `imagepipe serve`'s HTTP server: libmicrohttpd behind a small C layer (its start function is variadic).
        // libmicrohttpd is opened by `serve` (mhd_library.h says why), so it is not linked: only its header is used.
        .target(name: "HTTPServerShim", path: "Sources/HTTPServerShim", linkerSettings: [.linkedLibrary("dl")]),
        // `serve`'s local sources: files opened beneath a descriptor of --root (openat2), never by a checked name.
        .target(name: "OpenBeneath", path: "Sources/OpenBeneath"),
        // In-process pipeline measurements (Benchmarks/run calls it); not part of the product.
        .executableTarget(name: "pipeline-bench", dependencies: ["PipelineHost"], path: "Benchmarks/PipelineBench"),
        .executableTarget(name: "isolation-bench", dependencies: ["PipelineHost"], path: "Benchmarks/IsolationBench"),

        // The S3 protocol the S3Loader and S3Cache plugins share (linked into each; no Swift type crosses a plugin's boundary).
        .target(name: "S3Client", dependencies: ["PluginAPI", "PluginKit", "CCurl", "CS3Curl", "CCrypto"], path: "Sources/S3Client"),

        // Shrink-on-load by block averages while rows are decoded, shared by the PNG and TIFF coders (linked into each).
        .target(name: "BoxShrink", path: "Sources/BoxShrink"),

        // C libraries from Debian that more than one part of the tree uses (a plugin's own are in its folder).
        // Little CMS 2: every ICC transform of the host's colour step, CMYK JPEGs in JPEGCodec.
        systemLibrary("CLCMS2", pkgConfig: "lcms2", apt: ["liblcms2-dev"]),
        // libcurl's typed setopt wrappers, shared by HTTPLoader and S3Loader.
        systemLibrary("CCurl", pkgConfig: "libcurl", apt: ["libcurl4-openssl-dev"]),
        // The S3 client's process-wide libcurl share and progress callback; its SHA-256 (OpenSSL's libcrypto).
        systemLibrary("CS3Curl", pkgConfig: "libcurl", apt: ["libcurl4-openssl-dev"]),
        systemLibrary("CCrypto", pkgConfig: "libcrypto", apt: ["libssl-dev"]),

        // Tests.
        .target(name: "TestSupport", dependencies: ["PipelineHost"], path: "Tests/TestSupport"),
        .testTarget(name: "PipelineHostTests", dependencies: ["PipelineHost", "TestSupport"], path: "Tests/PipelineHostTests"),
        .testTarget(name: "EndToEndTests", dependencies: ["PipelineHost", "TestSupport"], path: "Tests/EndToEndTests"),
    ] + declaredPlugins.flatMap(\.targets),
    swiftLanguageModes: [.v6]
)
