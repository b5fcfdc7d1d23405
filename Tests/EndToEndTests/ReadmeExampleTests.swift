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
        let pipeline = ImageManager(host: host, configuration: ImagePipelineConfiguration(
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
    }
}
