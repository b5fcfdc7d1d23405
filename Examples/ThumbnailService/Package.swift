// swift-tools-version:6.0
//
// ThumbnailService — an application that embeds imagepipe's library (PipelineHost) the way any app would: as a
// package dependency by version. Its plugins are not part of the dependency: they are found where `make install`
// or the Debian package put them (see docs/library.md).
//
//   swift build -c release --package-path Examples/ThumbnailService
//   .build/release/ThumbnailService photo.png https://example.com/a.jpg --out thumbs/
//
// IMAGEPIPE_GIT_URL names the repository (a mirror, or a file:// clone); the default is the project's address.
import PackageDescription

let imagepipe = Context.environment["IMAGEPIPE_GIT_URL"] ?? "https://github.com/imagepipe/imagepipe.git"

let package = Package(
    name: "ThumbnailService",
    dependencies: [
        .package(url: imagepipe, from: "0.1.0"),
    ],
    targets: [
        .executableTarget(
            name: "ThumbnailService",
            dependencies: [.product(name: "PipelineHost", package: "imagepipe")]),
    ],
    swiftLanguageModes: [.v6]
)
