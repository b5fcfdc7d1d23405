import PipelineHost
import Synchronization
import Testing
import TestSupport

/// The host's roles are types a caller can program against: the coders manager and one plugin coder are both an
/// `ImageDecoding` and an `ImageEncoding` (the manager routes, the coder is fixed), and the pipeline's memory tier
/// is any `ImageCaching`.
@Suite struct RoleProtocolTests {
    static func roundTrip(_ decoder: any ImageDecoding, _ encoder: any ImageEncoding, _ png: [UInt8]) throws -> Image {
        #expect(decoder.canDecode(png) && encoder.canEncode(format: "png"))
        let info = try decoder.probe(data: png, options: DecodeOptions())
        let image = try decoder.decode(data: png, options: DecodeOptions(thumbnailSize: PixelSize(width: 8, height: 8)))
        #expect(info.width == 16 && image.width == 8)
        return try decoder.decode(data: try encoder.encode(image, format: "png", options: EncodeOptions()), options: DecodeOptions())
    }

    @Test func theManagerAndOneOfItsCodersAreSubstitutable() throws {
        let host = try PluginSandbox.host(loading: ["libPNGCoder.so", "libJPEGCoder.so"])
        let png = try host.coders.encode(try Image(width: 16, height: 12, bytes: (0..<(16 * 12)).flatMap { [UInt8($0 % 256), 80, 160, 255] }),
                                         format: "png")
        let coder = try #require(host.coders.coders.first { $0.descriptor.format == "png" })
        let throughManager = try Self.roundTrip(host.coders, host.coders, png)
        let throughCoder = try Self.roundTrip(coder, coder, png)
        #expect(throughManager.bytes == throughCoder.bytes)
        // The lone coder does not route: JPEG bytes are not its format, and it writes only its own.
        let jpeg = try host.coders.encode(throughCoder, format: "jpg")
        #expect(host.coders.canDecode(jpeg) && !coder.canDecode(jpeg))
        #expect(throws: PipelineError.self) { try coder.decode(data: jpeg, options: DecodeOptions()) }
        #expect(!coder.canEncode(format: "jpg"))
        #expect(throws: PipelineError.noEncoder(format: "jpg")) { try coder.encode(throughCoder, format: "jpg", options: EncodeOptions()) }
        // Its input limit is the manager's.
        var limited = DecodeOptions()
        limited.limits.maxInputBytes = 8
        #expect(throws: PipelineError.self) { try coder.decode(data: png, options: limited) }
    }

    /// A memory tier of the application's own, counting what the pipeline asks of it.
    final class CountingCache: ImageCaching {
        private let inner = MemoryCache()
        private let storeCount = Mutex(0)
        var stores: Int { storeCount.withLock { $0 } }
        func image(for key: String) -> Image? { inner.image(for: key) }
        func store(_ image: Image, for key: String) { storeCount.withLock { $0 += 1 }; inner.store(image, for: key) }
        func removeImage(for key: String) { inner.removeImage(for: key) }
        func removeAll() { inner.removeAll() }
    }

    @Test func anyImageCachingServesAsTheMemoryTier() async throws {
        let host = try PluginSandbox.host(loading: ["libPNGCoder.so", "libFileLoader.so"])
        let png = try host.coders.encode(try Image(width: 4, height: 4, bytes: [UInt8](repeating: 200, count: 64)), format: "png")
        let file = try TestFiles.write(png, to: try TestPaths.temporaryDirectory() + "/a.png")
        let cache = CountingCache()
        let manager = ImageManager(host: host, configuration: ImageManagerConfiguration(memoryCache: cache))
        _ = try await manager.image(for: file)
        _ = try await manager.image(for: file)
        #expect(cache.stores == 1)
        #expect(manager.statistics.memoryCacheHits == 1)
    }
}

