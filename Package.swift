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

let pluginNames = [
    "PNGCoder", "FileLoader", "SVGCoder", "PDFCoder", "AVIFCoder", "HEIFCoder", "JPEGCoder", "GIFCoder", "WebPCoder",
    "HTTPLoader",
]

/// Plugins written in C (a C target with the same linker rules); lib<name>.so like the Swift ones.
let cPluginNames = ["RedisCache"]

/// Plugins that declare what they need in their own folder (Plugins/<Name>/plugin.conf, see Plugins/README.md):
/// adding one touches nothing outside that folder. (SwiftPM caches this manifest's result by its text and the
/// environment; the Makefile adds a digest of the plugin.conf files, IMAGEPIPE_PLUGIN_CONFS, to the environment.) Each line is "key: value"; this reads `system-library:` (a C
/// library module in Plugins/<Name>/Sources/<Module>) and `depends:` (the plugin target's dependencies).
struct DeclaredPlugin {
    let name: String
    var systemLibraries: [(module: String, pkgConfig: String, apt: [String])] = []
    var dependencies: [String] = []

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
                    plugin.systemLibraries.append((words[0], words[1], Array(words.dropFirst(2))))
                case "depends": plugin.dependencies += words
                default: continue
                }
            }
            return plugin
        }
    }

    var targets: [Target] {
        systemLibraries.map { library in
            .systemLibrary(name: library.module, path: "Plugins/\(name)/Sources/\(library.module)", pkgConfig: library.pkgConfig,
                           providers: [.apt(library.apt)])
        } + [pluginTarget(name, dependencies: dependencies.map { .target(name: $0) }), pluginTests(name)]
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
    ] + (pluginNames + cPluginNames + declaredPlugins.map(\.name)).map { .library(name: $0, type: .dynamic, targets: [$0]) },
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
        .target(name: "HTTPServerShim", dependencies: ["CMicroHTTPD"], path: "Sources/HTTPServerShim"),
        // `serve`'s local sources: files opened beneath a descriptor of --root (openat2), never by a checked name.
        .target(name: "OpenBeneath", path: "Sources/OpenBeneath"),
        // In-process pipeline measurements (Benchmarks/run calls it); not part of the product.
        .executableTarget(name: "pipeline-bench", dependencies: ["PipelineHost"], path: "Benchmarks/PipelineBench"),
        .executableTarget(name: "isolation-bench", dependencies: ["PipelineHost"], path: "Benchmarks/IsolationBench"),

        // C libraries from Debian, through pkg-config.
        systemLibrary("CLibPNG", pkgConfig: "libpng", apt: ["libpng-dev"]),
        // PNGCodec deflates non-interlaced PNGs with libdeflate (about twice zlib's speed at the same size).
        systemLibrary("CDeflate", pkgConfig: "libdeflate", apt: ["libdeflate-dev"]),
        systemLibrary("CRsvg", pkgConfig: "librsvg-2.0", apt: ["librsvg2-dev"]),
        systemLibrary("CPoppler", pkgConfig: "poppler-glib", apt: ["libpoppler-glib-dev"]),
        systemLibrary("CAVIF", pkgConfig: "libavif", apt: ["libavif-dev"]),
        systemLibrary("CHEIF", pkgConfig: "libheif", apt: ["libheif-dev"]),
        // HEIFCoder drives libde265 (libheif's own HEVC decoder library) with worker threads: see HEVCDecoder.
        systemLibrary("CDE265", pkgConfig: "libde265", apt: ["libde265-dev"]),
        systemLibrary("CJPEG", pkgConfig: "libjpeg", apt: ["libjpeg62-turbo-dev"]),
        // giflib ships no .pc file: its module map links "gif" directly.
        .systemLibrary(name: "CGIF", path: "Sources/System/CGIF", providers: [.apt(["libgif-dev"])]),
        systemLibrary("CWebP", pkgConfig: "libwebpdemux", apt: ["libwebp-dev"]),
        systemLibrary("CCurl", pkgConfig: "libcurl", apt: ["libcurl4-openssl-dev"]),
        // Little CMS 2: every ICC transform of the host's colour step, and CMYK JPEGs in JPEGCodec.
        systemLibrary("CLCMS2", pkgConfig: "lcms2", apt: ["liblcms2-dev"]),

        // The service: an embedded HTTP server, and hiredis for the shared cache tier.
        systemLibrary("CMicroHTTPD", pkgConfig: "libmicrohttpd", apt: ["libmicrohttpd-dev"]),
        systemLibrary("CHiredis", pkgConfig: "hiredis", apt: ["libhiredis-dev"]),
        // Plugins.
        .target(name: "RedisCache", dependencies: ["PluginAPI", "CHiredis"], path: "Plugins/RedisCache/Sources/RedisCache",
                linkerSettings: pluginLinkerSettings),
        pluginTarget("PNGCoder", dependencies: ["PNGCodec"]),
        .target(name: "PNGCodec", dependencies: ["PluginAPI", "CLibPNG", "CDeflate"], path: "Plugins/PNGCoder/Sources/PNGCodec"),
        pluginTarget("FileLoader", dependencies: []),
        pluginTarget("SVGCoder", dependencies: ["CRsvg"]),
        pluginTarget("PDFCoder", dependencies: ["CPoppler"]),
        pluginTarget("AVIFCoder", dependencies: ["CAVIF"]),
        pluginTarget("HEIFCoder", dependencies: ["CHEIF", "HEVCDecoder"]),
        .target(name: "HEVCDecoder", dependencies: ["CHEIF", "CDE265"], path: "Plugins/HEIFCoder/Sources/HEVCDecoder"),
        pluginTarget("JPEGCoder", dependencies: ["JPEGCodec"]),
        .target(name: "JPEGCodec", dependencies: ["PluginAPI", "CJPEG", "CLCMS2"], path: "Plugins/JPEGCoder/Sources/JPEGCodec"),
        pluginTarget("GIFCoder", dependencies: ["CGIF"]),
        pluginTarget("WebPCoder", dependencies: ["CWebP"]),
        pluginTarget("HTTPLoader", dependencies: ["CCurl"]),

        // Tests.
        .target(name: "TestSupport", dependencies: ["PipelineHost"], path: "Tests/TestSupport"),
        .testTarget(name: "PipelineHostTests", dependencies: ["PipelineHost", "TestSupport"], path: "Tests/PipelineHostTests"),
        .testTarget(name: "EndToEndTests", dependencies: ["PipelineHost", "TestSupport"], path: "Tests/EndToEndTests"),
    ] + (pluginNames + cPluginNames).map(pluginTests) + declaredPlugins.flatMap(\.targets),
    swiftLanguageModes: [.v6]
)
