// swift-tools-version:6.0
//
// FarbfeldCoder — an imagepipe plugin written in Swift, built outside the imagepipe package.
// Copy this folder, rename the target, and point the dependency at your imagepipe checkout.
//
//   swift build -c release --package-path Templates/SwiftPlugin   →  .build/release/libFarbfeldCoder.so
//
// Against an installed imagepipe instead of a source tree (README: "Against an installed imagepipe"):
//   IMAGEPIPE_GIT_URL      the imagepipe repository (PluginAPI and PluginKit, by version) instead of the path ../..
//   IMAGEPIPE_EXPORTS_MAP  the installed version script: $(pkg-config --variable=versionscript imagepipe-plugin)
import Foundation
import PackageDescription

/// This folder, for the linker flag that names the export list.
let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path

let imagepipe: Package.Dependency = Context.environment["IMAGEPIPE_GIT_URL"].map { .package(url: $0, from: "0.1.0") }
    ?? .package(name: "imagepipe", path: "../..")
let exportsMap = Context.environment["IMAGEPIPE_EXPORTS_MAP"] ?? "\(here)/exports.map"

let package = Package(
    name: "FarbfeldCoder",
    products: [
        // A plugin is a dynamic library: lib<Name>.so.
        .library(name: "FarbfeldCoder", type: .dynamic, targets: ["FarbfeldCoder"]),
    ],
    dependencies: [
        // The imagepipe package: the C ABI (PluginAPI) and the Swift helpers (PluginKit).
        imagepipe,
    ],
    targets: [
        .target(
            name: "FarbfeldCoder",
            dependencies: [
                .product(name: "PluginAPI", package: "imagepipe"),
                .product(name: "PluginKit", package: "imagepipe"),
            ],
            linkerSettings: [
                // Export only imagepipe_plugin_entry, and make the library impossible to unload
                // (a Swift library unloaded by dlclose crashes the process at the next type lookup).
                .unsafeFlags([
                    "-Xlinker", "--version-script=\(exportsMap)",
                    "-Xlinker", "-z", "-Xlinker", "nodelete",
                ]),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
