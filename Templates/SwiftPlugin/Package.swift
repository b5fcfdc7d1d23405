// swift-tools-version:6.0
//
// FarbfeldCoder — an imagepipe plugin written in Swift, built outside the imagepipe package.
// Copy this folder, rename the target, and point the dependency at your imagepipe checkout.
//
//   swift build -c release --package-path Templates/SwiftPlugin   →  .build/release/libFarbfeldCoder.so
import Foundation
import PackageDescription

/// This folder, for the linker flag that names the export list.
let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path

let package = Package(
    name: "FarbfeldCoder",
    products: [
        // A plugin is a dynamic library: lib<Name>.so.
        .library(name: "FarbfeldCoder", type: .dynamic, targets: ["FarbfeldCoder"]),
    ],
    dependencies: [
        // The imagepipe package: the C ABI (PluginAPI) and the Swift helpers (PluginKit).
        .package(name: "imagepipe", path: "../.."),
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
                    "-Xlinker", "--version-script=\(here)/exports.map",
                    "-Xlinker", "-z", "-Xlinker", "nodelete",
                ]),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
