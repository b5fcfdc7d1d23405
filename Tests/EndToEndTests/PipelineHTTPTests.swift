import Foundation
import PipelineHost
import Testing
import TestSupport

/// The image manager against a real HTTP server on 127.0.0.1: coalescing, cancellation, caches, failed URLs,
/// limits, progress and the CLI's disk cache.
@Suite(.serialized) struct PipelineHTTPTests {
    let folder: String
    let server: TestHTTPServer
    let host: PluginHost

    init() throws {
        folder = try TestPaths.temporaryDirectory()
        host = try PluginSandbox.host(loading: ["libHTTPLoader.so", "libPNGCoder.so", "libFileLoader.so"])
        // A 64x48 gradient PNG made by the project's own encoder.
        var pixels: [UInt8] = []
        for y in 0..<48 { for x in 0..<64 { pixels += [UInt8(x * 4), UInt8(y * 5), 128, 255] } }
        let png = try host.coders.encode(try Image(width: 64, height: 48, bytes: pixels), format: "png")
        try Data(png).write(to: URL(fileURLWithPath: folder + "/image.png"))
        server = try TestHTTPServer(root: folder)
    }

    private func manager(dataCache: (any DataCaching)? = nil, memory: Bool = false,
                         keyFilter: @escaping @Sendable (String) -> String = { $0 }) -> ImageManager {
        ImageManager(host: host, configuration: ImageManagerConfiguration(
            memoryCache: memory ? MemoryCache() : nil, dataCache: dataCache, keyFilter: keyFilter))
    }

    @Test func hundredConcurrentRequestsShareOneFetch() async throws {
        let manager = manager()
        let url = server.url("/chunked?name=image.png")
        try await withThrowingTaskGroup(of: Image.self) { group in
            for i in 0..<100 {
                // Different sizes share the fetch; each gets its own result.
                let size = PixelSize(width: 8 + i % 4, height: 0)
                group.addTask { try await manager.image(for: ImageRequest(url: url, options: DecodeOptions(thumbnailSize: size))) }
            }
            var widths = Set<Int>()
            for try await image in group { widths.insert(image.width) }
            #expect(widths == [8, 9, 10, 11])
        }
        #expect(try server.requestCount("/chunked") == 1)
    }

    /// Waits (polling every 2 ms, at most 10 s) until the origin has seen `count` requests for `path`.
    func waitForRequests(_ count: Int, to path: String) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while try server.requestCount(path) < count {
            guard ContinuousClock.now < deadline else { throw TestSupportError("the origin never saw request \(count) for \(path)") }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
    }

    @Test func cancellingSomeWaitersKeepsTheFetchAndCancellingAllStopsIt() async throws {
        let manager = manager()
        let url = server.url("/slow?bytes=20000&delay=50&chunk=1000")  // about one second
        let tasks = (0..<100).map { _ in Task { try await manager.data(for: ImageRequest(url: url)) } }
        // Cancel as soon as the one shared fetch has reached the origin (waited for, not slept for): it then has
        // about a second of body still to send, so the cancellations land while it runs.
        try await waitForRequests(1, to: "/slow")
        for task in tasks.dropFirst() { task.cancel() }
        for task in tasks.dropFirst() {
            await #expect(throws: PipelineError.cancelled) { _ = try await task.value }
        }
        let survivor = try await tasks[0].value
        #expect(survivor.count == 20000)
        #expect(try server.requestCount("/slow") == 1)

        // All waiters cancel: each gets the cancellation (not the bytes, which a fetch that kept running would
        // deliver), the fetch stops, and the next request starts a new one.
        let doomed = (0..<5).map { _ in Task { try await manager.data(for: ImageRequest(url: url)) } }
        try await waitForRequests(2, to: "/slow")
        doomed.forEach { $0.cancel() }
        for task in doomed {
            await #expect(throws: PipelineError.cancelled) { _ = try await task.value }
        }
        _ = try await manager.data(for: ImageRequest(url: server.url("/slow?bytes=100&delay=1")))
        #expect(try server.requestCount("/slow") == 3)
    }

    @Test func twoThumbnailSizesOfOneURLDownloadOnce() async throws {
        let cache = try DiskCache(directory: try TestPaths.temporaryDirectory())
        let manager = manager(dataCache: cache)
        let url = server.url("/image.png")
        let small = try await manager.image(for: ImageRequest(url: url, options: DecodeOptions(thumbnailSize: PixelSize(width: 16, height: 16))))
        let large = try await manager.image(for: ImageRequest(url: url, options: DecodeOptions(thumbnailSize: PixelSize(width: 32, height: 32))))
        #expect(small.width == 16 && large.width == 32)
        #expect(try server.requestCount("/image.png") == 1)
        // The same thumbnail again comes from the result cache, not even from the original.
        let again = try await manager.image(for: ImageRequest(url: url, options: DecodeOptions(thumbnailSize: PixelSize(width: 16, height: 16))))
        #expect(again.bytes == small.bytes)
        // refresh loads again; cache-only never loads.
        _ = try await manager.image(for: ImageRequest(url: url, fetchPolicy: .refresh))
        #expect(try server.requestCount("/image.png") == 2)
        await #expect(throws: PipelineError.notInCache(url: server.url("/other.png"))) {
            _ = try await manager.image(for: ImageRequest(url: server.url("/other.png"), fetchPolicy: .returnCacheDontLoad))
        }
    }

    /// An HTML page served with status 200 as image/png is not cached: once the server serves the image, the next
    /// request loads and decodes it instead of failing from the cache without a request.
    @Test func aBodyNoCoderRecognisesIsNotCached() async throws {
        let cache = try DiskCache(directory: try TestPaths.temporaryDirectory())
        let manager = manager(dataCache: cache)
        try Data("<html><body>Service Unavailable</body></html>".utf8).write(to: URL(fileURLWithPath: folder + "/page.png"))
        let url = server.url("/page.png")
        await #expect(throws: PipelineError.self) { _ = try await manager.image(for: ImageRequest(url: url)) }
        #expect(try await cache.data(for: ImageCacheKey(ImageRequest(url: url)).dataKey) == nil, "the HTML body was cached")
        try FileManager.default.copyItem(atPath: folder + "/image.png", toPath: folder + "/page-next.png")
        try FileManager.default.removeItem(atPath: folder + "/page.png")
        try FileManager.default.moveItem(atPath: folder + "/page-next.png", toPath: folder + "/page.png")
        let image = try await manager.image(for: ImageRequest(url: url, retryFailed: true))
        #expect((image.width, image.height) == (64, 48))
        #expect(try server.requestCount("/page.png") == 2)
    }

    /// Bytes in the cache that no longer decode (planted, or written by an older version) are evicted by the failed
    /// decode, so the next request fetches the URL again.
    @Test func cachedBytesThatFailToDecodeAreEvicted() async throws {
        let cache = try DiskCache(directory: try TestPaths.temporaryDirectory())
        let manager = manager(dataCache: cache)
        let url = server.url("/image.png?evict")
        let key = ImageCacheKey(ImageRequest(url: url)).dataKey
        // A PNG signature and then nothing a PNG decoder accepts.
        try await cache.store([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array("but not really".utf8), for: key)
        await #expect(throws: PipelineError.self) { _ = try await manager.image(for: ImageRequest(url: url)) }
        #expect(try server.requestCount("/image.png") == 0, "the first failure came from the cache")
        #expect(try await cache.data(for: key) == nil, "the bytes that failed were not evicted")
        let image = try await manager.image(for: ImageRequest(url: url, retryFailed: true))
        #expect(image.width == 64)
        #expect(try server.requestCount("/image.png") == 1)
    }

    @Test func keyFilterLetsSignedURLsShareACacheEntry() async throws {
        let cache = try DiskCache(directory: try TestPaths.temporaryDirectory())
        let manager = manager(dataCache: cache, keyFilter: { $0.components(separatedBy: "?").first ?? $0 })
        _ = try await manager.image(for: ImageRequest(url: server.url("/image.png?token=1")))
        _ = try await manager.image(for: ImageRequest(url: server.url("/image.png?token=2")))
        #expect(try server.requestCount("/image.png") == 1)
    }

    @Test func failedURLsAreNotFetchedAgainUntilRetry() async throws {
        let manager = manager()
        let url = server.url("/status/404")
        for _ in 0..<3 {
            await #expect { _ = try await manager.image(for: ImageRequest(url: url)) } throws: { error in
                (error as? PipelineError)?.status == .notFound
            }
        }
        #expect(try server.requestCount("/status/404") == 1)
        await #expect(throws: PipelineError.self) { _ = try await manager.image(for: ImageRequest(url: url, retryFailed: true)) }
        #expect(try server.requestCount("/status/404") == 2)
        // A 500 is not permanent: it is fetched again.
        let flaky = server.url("/status/500")
        for _ in 0..<2 { await #expect(throws: PipelineError.self) { _ = try await manager.image(for: ImageRequest(url: flaky)) } }
        #expect(try server.requestCount("/status/500") == 2)
    }

    @Test func responseValidatorRejectsWrongContentTypes() async throws {
        let manager = ImageManager(host: host, configuration: ImageManagerConfiguration(memoryCache: nil, responseValidator: { response in
            try LoadHooks.acceptSuccess(response)
            guard response.contentType?.hasPrefix("image/") == true else { throw HTTPStatusError(statusCode: 415) }
        }))
        await #expect(throws: PipelineError.self) { _ = try await manager.image(for: ImageRequest(url: server.url("/wrong-type"))) }
        _ = try await manager.image(for: ImageRequest(url: server.url("/image.png")))
    }

    @Test func maxBodyIsEnforcedByHeaderAndByStream() async throws {
        let manager = manager()
        for path in ["/big?bytes=5000000", "/big-no-length?bytes=5000000"] {
            await #expect { _ = try await manager.data(for: ImageRequest(url: server.url(path), loadOptions: LoadOptions(maxBytes: 100_000))) }
                throws: { error in (error as? PipelineError)?.status == .limitExceeded }
        }
    }

    @Test func progressIsMonotonicAndEndsAtTheTotal() async throws {
        let manager = manager()
        var received: [Int] = []
        var expected: Int?
        var final: Image?
        let size = try #require(try FileManager.default.attributesOfItem(atPath: folder + "/image.png")[.size] as? Int)
        for try await event in manager.events(for: ImageRequest(url: server.url("/chunked?name=image.png"))) {
            switch event {
            case .progress(let r, let e): received.append(r); expected = e
            case .preview: break
            case .image(let image): final = image
            }
        }
        #expect(final?.width == 64)
        #expect(!received.isEmpty)
        #expect(received == received.sorted())
        #expect(received.last == size)
        #expect(expected == nil || expected == size)
    }
}

/// `--timeout` of the CLI bounds the download as well as the decode: a server that sends its headers and then
/// nothing held a render for the loader's fixed 60 s before. Outcome-based: the render fails with a timeout, and
/// the server's 20 s delay would have made any render that waited for the body succeed.
@Suite struct CLIDownloadTimeoutTests {
    @Test(.timeLimit(.minutes(1))) func timeoutBoundsTheDownload() throws {
        let folder = try TestPaths.temporaryDirectory("cli-timeout")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer(root: folder)
        defer { server.stop() }
        let url = server.url("/slow?bytes=100&delay=20000&chunk=100")
        let result = try CommandLine.run(TestPaths.imagepipeBinary, [
            "render", url, "--timeout", "1", "--no-cache", "-o", folder + "/out.png"])
        #expect(result.status == 1)
        #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("timed out after"), "\(result.stderr)")
        #expect(result.stderr.contains("timeout 1000 ms"), "\(result.stderr)")
        let bad = try CommandLine.run(TestPaths.imagepipeBinary, ["render", url, "--connect-timeout", "0", "-o", folder + "/o.png"])
        #expect(bad.status == 2, "\(bad.stderr)")
    }
}

/// Progressive previews and the CLI's disk cache, end to end.
@Suite(.serialized) struct PipelineProgressiveTests {
    @Test func progressiveJPEGGivesPreviewsBeforeTheFinalImage() async throws {
        try Skip.unlessTool("cjpeg")
        try Skip.unlessTool("convert")
        let folder = try TestPaths.temporaryDirectory()
        guard try CommandLine.shell("convert -size 640x480 -seed 5 plasma:fractal \(folder)/p.ppm && cjpeg -progressive -quality 90 \(folder)/p.ppm > \(folder)/p.jpg").status == 0 else {
            Issue.record("could not make a progressive JPEG"); return
        }
        let server = try TestHTTPServer(root: folder)
        let host = try PluginSandbox.host(loading: ["libHTTPLoader.so", "libJPEGCoder.so"])
        let manager = ImageManager(host: host, configuration: ImageManagerConfiguration(memoryCache: nil))
        let size = PixelSize(width: 160, height: 0)
        var previews: [Image] = []
        var final: Image?
        let request = ImageRequest(url: server.url("/slowfile?name=p.jpg&delay=20&chunk=4096"), options: DecodeOptions(thumbnailSize: size))
        for try await event in manager.events(for: request) {
            switch event {
            case .preview(let image): previews.append(image)
            case .image(let image): final = image
            case .progress: break
            }
        }
        let image = try #require(final)
        #expect(image.width == 160 && image.height == 120)
        #expect(!previews.isEmpty, "a progressive JPEG arriving over a second must yield previews")
        #expect(previews.allSatisfy { $0.width == 160 && $0.height == 120 }, "previews are finished at the requested size")
        let direct = try host.coders.decode(data: Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/p.jpg"))),
                                            options: DecodeOptions(thumbnailSize: size))
        #expect(direct.bytes == image.bytes, "previews never replace the final decode")
    }

    @Test func aSecondCLIRunIsServedFromTheDiskCache() throws {
        let folder = try TestPaths.temporaryDirectory()
        let host = try PluginSandbox.host(loading: ["libPNGCoder.so"])
        let png = try host.coders.encode(try Image(width: 40, height: 30, bytes: [UInt8](repeating: 90, count: 40 * 30 * 4)), format: "png")
        try Data(png).write(to: URL(fileURLWithPath: folder + "/image.png"))
        let server = try TestHTTPServer(root: folder)
        let cache = folder + "/cache"
        for size in ["20x20", "20x20", "10x10"] {
            let run = try CommandLine.run(TestPaths.imagepipeBinary, ["render", server.url("/image.png"), "--size", size,
                                                                       "--cache-dir", cache, "-o", folder + "/out.png"])
            #expect(run.status == 0, "\(run.stderr)")
        }
        #expect(try server.requestCount("/image.png") == 1, "the second and third runs read the disk cache")
        let uncached = try CommandLine.run(TestPaths.imagepipeBinary, ["render", server.url("/image.png"), "--no-cache", "-o", folder + "/out.png"])
        #expect(uncached.status == 0)
        #expect(try server.requestCount("/image.png") == 2)
        let stats = try CommandLine.run(TestPaths.imagepipeBinary, ["cache", "stats", "--json", "--cache-dir", cache])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        #expect(json["entryCount"] as? Int == 3, "the original and two thumbnails")
    }
}
