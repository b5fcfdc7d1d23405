import Foundation
import PipelineHost
import Testing
import TestSupport

/// The README's library example, compiled and run against local files (the README's URLs are examples only).
@Suite struct ReadmeExampleTests {
    @Test func theReadmeLibraryExampleWorks() async throws {
        let folder = try TestPaths.temporaryDirectory()
        let samples = TestPaths.repositoryRoot + "/samples"
        let host = PluginHost(searchPath: PluginSearchPath(directories: [TestPaths.pluginsDirectory]), cachePath: nil)
        let pipeline = ImageManager(host: host, configuration: ImageManagerConfiguration(
            memoryCache: MemoryCache(), dataCache: try DiskCache(directory: folder + "/cache")))
        let thumbnail = try await pipeline.image(for: samples + "/badge.svg",
                                                 thumbnailPixelSize: PixelSize(width: 256, height: 256), tint: nil)
        #expect(thumbnail.width == 256 && thumbnail.height == 171)
        let icon = try await pipeline.image(for: ImageRequest(url: samples + "/icon.svg",
            options: DecodeOptions(thumbnailSize: PixelSize(width: 64, height: 64), tint: RGBAColor(parsing: "#ff3b30"), template: true)))
        #expect(icon.width == 64)
        let centre = icon.pixel(x: 32, y: 20)
        #expect(centre.r == 255 && centre.g == 59 && centre.b == 48 && centre.a > 200)
        // A Display P3 file made here (the README's is an example path), then read with its profile kept.
        let p3 = try host.coders.decode(data: try TestFiles.read(samples + "/badge.svg"), options: DecodeOptions(colorOutput: .displayP3))
        let p3File = try TestFiles.write(try host.coders.encode(p3, format: "png"), to: folder + "/p3.png")
        let wide = try await pipeline.image(for: ImageRequest(url: p3File,
            options: DecodeOptions(colorOutput: .keep)))   // .srgb (default), .displayP3, .keep; wide.color says which
        #expect(wide.color?.summary.contains("Display P3") == true)
        var sawImage = false
        for try await event in pipeline.events(for: ImageRequest(url: samples + "/report.pdf")) {
            if case .image(let page) = event { sawImage = page.width == 555 }
        }
        #expect(sawImage)
        // The card and the prefetcher, from a photo-like file made here.
        let photo = try host.coders.encode(try host.coders.decode(data: try TestFiles.read(samples + "/badge.svg"),
                                                                  options: DecodeOptions(thumbnailSize: PixelSize(width: 600, height: 400))), format: "jpg")
        let team = try TestFiles.write(photo, to: folder + "/team.jpg")
        let card = try await pipeline.image(for: ImageRequest(url: team,
            options: DecodeOptions(thumbnailSize: PixelSize(width: 320, height: 180), scaleMode: .aspectFill, gravity: .top),
            transformers: [ImageTransformers.RoundedCorners(radius: 16), ImageTransformers.Sharpen()]))
        #expect(card.width == 320 && card.height == 180 && card.pixel(x: 0, y: 0).a == 0)
        let nextPage = [team, samples + "/icon.svg"]
        let prefetcher = ImagePrefetcher(manager: pipeline)          // low priority; fills the caches
        prefetcher.startPrefetching(with: nextPage.map { ImageRequest(url: $0) })
        await prefetcher.waitUntilIdle()
        #expect(prefetcher.outcome.completed == 2)
    }
}

/// The README's library block itself, not a copy: extracted from README.md, wrapped in an async function and
/// compiled against this package (by path) with SwiftPM, so an edit to the README that no longer compiles fails
/// here. It is compiled, not run: its URLs and paths are examples (the test above runs the same calls on real files).
@Suite struct ReadmeCompileTests {
    static func swiftBlocks(under heading: String) throws -> [String] {
        let text = try String(contentsOfFile: TestPaths.repositoryRoot + "/README.md", encoding: .utf8)
        let start = try #require(text.range(of: "\n" + heading + "\n"), "README.md lost its '\(heading)' section")
        let section = text[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        var blocks: [String] = []
        var rest = section[..<end]
        while let open = rest.range(of: "```swift\n"), let close = rest[open.upperBound...].range(of: "\n```") {
            blocks.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return blocks
    }

    @Test func theReadmeLibraryBlockCompiles() throws {
        let blocks = try Self.swiftBlocks(under: "## Using the library")
        try #require(!blocks.isEmpty, "no ```swift block under 'Using the library'")
        let package = try TestPaths.temporaryDirectory("readme-compile")
        try FileManager.default.createDirectory(atPath: package + "/Sources/ReadmeExample", withIntermediateDirectories: true)
        try """
            // swift-tools-version:6.0
            import PackageDescription
            let package = Package(name: "ReadmeExample",
                dependencies: [.package(name: "imagepipe", path: "\(TestPaths.repositoryRoot)")],
                targets: [.executableTarget(name: "ReadmeExample", dependencies: [.product(name: "PipelineHost", package: "imagepipe")])],
                swiftLanguageModes: [.v6])
            """.write(toFile: package + "/Package.swift", atomically: true, encoding: .utf8)
        let bodies = blocks.map { block in
            block.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("import ") }.joined(separator: "\n")
        }
        let source = "import PipelineHost\n\n" + bodies.enumerated().map { index, body in
            "@Sendable func readmeBlock\(index)() async throws {\n\(body)\n}"
        }.joined(separator: "\n\n") + "\n\nprint(\"compiled\")\n"
        try source.write(toFile: package + "/Sources/ReadmeExample/main.swift", atomically: true, encoding: .utf8)
        let swift = ExampleAppTests.swift
        let arguments = (swift == "/usr/bin/env" ? ["swift"] : []) + ["build", "-c", "debug", "--package-path", package]
        let build = try CommandLine.run(swift, arguments)
        #expect(build.status == 0, "the README's block no longer compiles:\n\(build.stdout.suffix(3000))\n\(build.stderr.suffix(1500))")
    }
}
