import Foundation
import PipelineHost
import Testing
import TestSupport

/// Which sources the host reads by ranges (`RangedSource`), and that the image manager's ranged path gives the
/// same pixels as reading the file whole, with the real PNG coder.
@Suite struct RangedSourceTests {
    let folder: String
    let bigPNG: String
    let host: PluginHost

    init() throws {
        folder = try TestPaths.temporaryDirectory("ranged-source")
        host = try PluginSandbox.host(loading: ["libPNGCoder.so", "libFileLoader.so"])
        // 1600x1200 noise: several megabytes that do not compress, decoded row by row from the file.
        let pixels = SplitMix64.opaqueNoise(width: 1600, height: 1200, seed: 29)
        let png = try host.coders.encode(try Image(width: 1600, height: 1200, bytes: pixels), format: "png", options: EncodeOptions())
        bigPNG = folder + "/big.png"
        try Data(png).write(to: URL(fileURLWithPath: bigPNG))
    }

    @Test("absolute paths and host-less file: URLs open; the prefix is the file's start and nothing else is read yet")
    func localFilesOpen() throws {
        let name = folder + "/with space %.png"
        try FileManager.default.copyItem(atPath: bigPNG, toPath: name)
        let escaped = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!
        let bytes = try TestFiles.read(bigPNG)
        for url in [bigPNG, "file://" + bigPNG, "file://localhost" + bigPNG, "FILE://LOCALHOST" + bigPNG,
                    "file:" + bigPNG, "file://" + escaped, "file://" + bigPNG + "?v=2#top"] {
            let source = try #require(RangedSource(url: url, threshold: 1024), "\(url)")
            #expect(source.size == UInt64(bytes.count), "\(url)")
            #expect(source.prefix == Array(bytes.prefix(RangedSource.prefixLength)), "\(url)")
            #expect(source.bytesRead == 0)
        }
    }

    @Test("other hosts, relative paths, NULs, folders, missing files and small files are not ranged")
    func otherSourcesAreNot() throws {
        let small = folder + "/small.bin"
        try Data(repeating: 7, count: 100).write(to: URL(fileURLWithPath: small))
        for url in ["file://otherhost" + bigPNG, "big.png", "file:big.png", "file://" + bigPNG + "%00.png",
                    "file://" + bigPNG.replacingOccurrences(of: "/big.png", with: "/%zz"), bigPNG + "\u{0}x",
                    "http://127.0.0.1" + bigPNG, folder, "file://" + folder, folder + "/missing.png", small] {
            #expect(RangedSource(url: url, threshold: 1024) == nil, "\(url)")
        }
        #expect(RangedSource(url: bigPNG, threshold: 1 << 30) == nil, "below the threshold")
    }

    private func manager(threshold: Int?) -> ImageManager {
        var configuration = ImageManagerConfiguration(memoryCache: nil)
        configuration.rangedReadThreshold = threshold
        return ImageManager(host: host, configuration: configuration)
    }

    @Test("the image manager reads a large local PNG by ranges, with the pixels of a whole read",
          arguments: [nil, PixelSize(width: 256, height: 256)])
    func managerReadsByRanges(size: PixelSize?) async throws {
        let ranged = manager(threshold: 1024)
        let whole = manager(threshold: nil)
        let options = DecodeOptions(thumbnailSize: size)
        let byRanges = try await ranged.image(for: ImageRequest(url: "file://" + bigPNG, options: options))
        let byWhole = try await whole.image(for: ImageRequest(url: "file://" + bigPNG, options: options))
        #expect(ranged.statistics.rangedReads == 1, "\(ranged.statistics)")
        #expect(whole.statistics.rangedReads == 0, "\(whole.statistics)")
        #expect(byRanges.width == (size == nil ? 1600 : 256))
        #expect(byRanges.width == byWhole.width && byRanges.height == byWhole.height)
        #expect(byRanges.bytes == byWhole.bytes)
    }

    @Test("a file below the threshold is read whole, and a missing one fails as the file loader says")
    func smallAndMissingFiles() async throws {
        let manager = manager(threshold: 64 << 20)
        let image = try await manager.image(for: ImageRequest(url: "file://" + bigPNG))
        #expect(image.width == 1600)
        #expect(manager.statistics.rangedReads == 0)
        let ranged = self.manager(threshold: 1024)
        await #expect(throws: (any Error).self) {
            _ = try await ranged.image(for: ImageRequest(url: "file://" + folder + "/missing.png"))
        }
        #expect(ranged.statistics.rangedReads == 0)
    }
}
