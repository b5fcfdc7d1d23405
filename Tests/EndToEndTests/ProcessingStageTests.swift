import Foundation
import PipelineHost
import Synchronization
import Testing
import TestSupport

/// The image manager's stages against a real HTTP server on 127.0.0.1: shared fetches and full decodes across
/// sizes, shared processing, one load for animations, previews through the request's transformers, the
/// scale-down budget, prefetching, and the bounded executors.
@Suite(.serialized) struct ProcessingStageTests {
    let folder: String
    let server: TestHTTPServer
    let host: PluginHost

    init() throws {
        folder = try TestPaths.temporaryDirectory("stages")
        host = try PluginSandbox.host(loading: ["libHTTPLoader.so", "libPNGCoder.so", "libGIFCoder.so", "libJPEGCoder.so", "libFileLoader.so"])
        // 1600x1200 noise: a PNG whose decode takes tens of milliseconds, so requests overlap on it. Interlaced, so
        // that it is a raster decoded at full size (a non-interlaced PNG shrinks on load for each size instead).
        let pixels = SplitMix64.opaqueNoise(width: 1600, height: 1200, seed: 15)
        let png = try host.coders.encode(try Image(width: 1600, height: 1200, bytes: pixels), format: "png",
                                         options: EncodeOptions(progressive: true))
        try Data(png).write(to: URL(fileURLWithPath: folder + "/big.png"))
        // A three-frame animated GIF made by the project's own encoder.
        let frames = try (0..<3).map { n in
            try Image(width: 24, height: 16, bytes: (0..<(24 * 16)).flatMap { _ in [UInt8(n * 100), 50, 200, 255] })
                .with(durationMilliseconds: 100)
        }
        var options = EncodeOptions()
        options.loopCount = 0
        try Data(try host.coders.encode(frames: frames, format: "gif", options: options)).write(to: URL(fileURLWithPath: folder + "/anim.gif"))
        server = try TestHTTPServer(root: folder)
    }

    private func manager(memory: Bool = false) -> ImageManager {
        ImageManager(host: host, configuration: ImageManagerConfiguration(memoryCache: memory ? MemoryCache() : nil))
    }

    /// PNG claims shrink-on-load (whatever one file's interlacing), so sizes asked while a decode runs are decoded
    /// each on its own (SizesFromOneDecode's `.anySize` rule); the fetch is still shared.
    @Test("two sizes of one URL asked at once: one fetch, each size as a decode of its own gives")
    func twoSizesShareTheFetchAndTheFullDecode() async throws {
        let manager = manager()
        let url = server.url("/slowfile?name=big.png&delay=100&chunk=2000000")
        let sizes = [PixelSize(width: 256, height: 256), PixelSize(width: 64, height: 64)]
        let images = try await withThrowingTaskGroup(of: (Int, Image).self) { group in
            for (index, size) in sizes.enumerated() {
                group.addTask { (index, try await manager.image(for: ImageRequest(url: url, options: DecodeOptions(thumbnailSize: size)))) }
            }
            var images: [Int: Image] = [:]
            for try await (index, image) in group { images[index] = image }
            return images
        }
        #expect(try server.requestCount("/slowfile") == 1)
        #expect(manager.statistics.fetches == 1)
        #expect(manager.statistics.decodes == 2, "\(manager.statistics)")
        let bytes = try TestFiles.read(folder + "/big.png")
        for (index, size) in sizes.enumerated() {
            let alone = try host.coders.decode(data: bytes, options: DecodeOptions(thumbnailSize: size))
            #expect(images[index]?.bytes == alone.bytes, "\(size)")
        }
    }

    @Test("identical requests share one processing; the next one is a memory-cache hit")
    func identicalRequestsShareProcessing() async throws {
        let manager = manager(memory: true)
        let request = ImageRequest(url: server.url("/slowfile?name=big.png&delay=50&chunk=4000000"),
                                   options: DecodeOptions(thumbnailSize: PixelSize(width: 100, height: 100)),
                                   transformers: [ImageTransformers.GaussianBlur(sigma: 1), ImageTransformers.RoundedCorners(radius: 10)])
        async let a = manager.image(for: request)
        async let b = manager.image(for: request)
        let (first, second) = try await (a, b)
        #expect(first.bytes == second.bytes)
        #expect(manager.statistics.processings == 1)
        #expect(manager.statistics.decodes == 1)
        _ = try await manager.image(for: request)
        #expect(manager.statistics.memoryCacheHits == 1)
        #expect(first.pixel(x: 0, y: 0).a == 0, "the rounded corner is transparent")
    }

    @Test("an animation is loaded and probed once: frames, loop count and transformers from one fetch")
    func animationLoadsOnce() async throws {
        let manager = manager()
        let request = ImageRequest(url: server.url("/slowfile?name=anim.gif&delay=10&chunk=100000"),
                                   transformers: [ImageTransformers.Rotate(.quarter)])
        let animation = try await manager.animation(for: request)
        #expect(animation.frames.count == 3)
        #expect(animation.loopCount == 0)
        #expect(animation.frames.allSatisfy { $0.width == 16 && $0.height == 24 }, "every frame went through the transformers")
        #expect(try server.requestCount("/slowfile") == 1)
        #expect(manager.statistics.fetches == 1)
    }

    @Test("previews pass through the request's transformers: they have the final image's size and shape")
    func previewsPassThroughTransformers() async throws {
        try Skip.unlessTool("cjpeg")
        try Skip.unlessTool("convert")
        guard try CommandLine.shell("convert -size 640x480 -seed 5 plasma:fractal \(folder)/p.ppm && cjpeg -progressive -quality 90 \(folder)/p.ppm > \(folder)/p.jpg").status == 0 else {
            Issue.record("could not make a progressive JPEG"); return
        }
        let manager = manager()
        let request = ImageRequest(url: server.url("/slowfile?name=p.jpg&delay=20&chunk=4096"),
                                   options: DecodeOptions(thumbnailSize: PixelSize(width: 160, height: 0)),
                                   transformers: [ImageTransformers.Crop(aspectRatio: 1, 1), ImageTransformers.Circle()])
        var previews: [Image] = []
        var final: Image?
        for try await event in manager.events(for: request) {
            switch event {
            case .preview(let image): previews.append(image)
            case .image(let image): final = image
            case .progress: break
            }
        }
        let image = try #require(final)
        #expect(image.width == 120 && image.height == 120)
        #expect(!previews.isEmpty)
        #expect(previews.allSatisfy { $0.width == 120 && $0.height == 120 && $0.pixel(x: 0, y: 0).a == 0 })
    }

    @Test("a scale-down budget without a size decodes to at most that many bytes, aspect kept; with a size it is moot")
    func scaleDownBudget() async throws {
        let manager = manager()
        let url = folder + "/big.png"
        let image = try await manager.image(for: ImageRequest(url: url, options: DecodeOptions(scaleDownLimitBytes: 1_000_000)))
        #expect(image.width * image.height * 4 <= 1_000_000)
        #expect(image.width >= 570 && abs(Double(image.width) / Double(image.height) - 4.0 / 3.0) < 0.01, "\(image.width)x\(image.height)")
        let sized = try await manager.image(for: ImageRequest(url: url, options: DecodeOptions(thumbnailSize: PixelSize(width: 800, height: 800), scaleDownLimitBytes: 1000)))
        #expect(sized.width == 800)
        let whole = try await manager.image(for: ImageRequest(url: url, options: DecodeOptions(scaleDownLimitBytes: 100_000_000)))
        #expect(whole.width == 1600)
        // A coder that shrinks on load (JPEG) gets the budget's box too.
        let jpeg = try host.coders.encode(try host.coders.decode(data: try TestFiles.read(url)), format: "jpg")
        let small = try host.coders.decode(data: jpeg, options: DecodeOptions(scaleDownLimitBytes: 200_000))
        #expect(small.width * small.height * 4 <= 200_000 && small.width >= 250)
    }

    @Test("an aspect-fill with gravity from a coder that renders at size (JPEG) keeps the same region as the host's resample (PNG)")
    func gravityThroughAScalingCoder() throws {
        // Left half white, right half black: gravity left keeps white, right keeps black, whoever scales.
        var pixels: [UInt8] = []
        for _ in 0..<200 { for x in 0..<400 { pixels += x < 200 ? [255, 255, 255, 255] : [0, 0, 0, 255] } }
        let source = try Image(width: 400, height: 200, bytes: pixels)
        let png = try host.coders.encode(source, format: "png"), jpeg = try host.coders.encode(source, format: "jpg", options: EncodeOptions(quality: 95))
        for (gravity, expected) in [(Gravity.left, 255), (.right, 0)] {
            let options = DecodeOptions(thumbnailSize: PixelSize(width: 50, height: 100), scaleMode: .aspectFill, gravity: gravity)
            for (name, bytes) in [("png", png), ("jpeg", jpeg)] {
                let image = try host.coders.decode(data: bytes, options: options)
                #expect(image.width == 50 && image.height == 100, "\(name) \(gravity)")
                let centre = Int(image.pixel(x: 25, y: 50).r)
                #expect(abs(centre - expected) <= 8, "\(name) \(gravity): \(centre)")
            }
        }
    }

    @Test("the prefetcher fills the memory cache at low priority; stopping cancels what is queued and running")
    func prefetcherWarmsAndStops() async throws {
        let manager = manager(memory: true)
        let prefetcher = ImagePrefetcher(manager: manager, maxConcurrent: 2)
        let requests = [32, 48, 64].map { ImageRequest(url: folder + "/big.png", options: DecodeOptions(thumbnailSize: PixelSize(width: $0, height: $0))) }
        prefetcher.startPrefetching(with: requests + requests)  // duplicates are ignored
        await prefetcher.waitUntilIdle()
        #expect(prefetcher.outcome.completed == 3)
        let decodes = manager.statistics.decodes
        for request in requests { _ = try await manager.image(for: request) }
        #expect(manager.statistics.memoryCacheHits == 3)
        #expect(manager.statistics.decodes == decodes)

        let slow = (0..<4).map { ImageRequest(url: server.url("/stall?ms=3000&n=\($0)")) }
        let started = ContinuousClock.now
        prefetcher.startPrefetching(with: slow)
        try await Task.sleep(nanoseconds: 100_000_000)
        prefetcher.stopPrefetching()
        await prefetcher.waitUntilIdle()
        #expect(ContinuousClock.now - started < .seconds(2.5), "stopping must not wait for the stalled fetches")
        #expect(prefetcher.outcome.cancelled == 4, "\(prefetcher.outcome)")
    }

    @Test("a stage executor runs at most its width at once and drops a queued job whose task is cancelled")
    func executorIsBoundedAndCancellable() async throws {
        let executor = StageExecutor(name: "test", width: 2)
        let counts = Counts()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    try await executor.run {
                        counts.enter()
                        usleep(30_000)
                        counts.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        // At most the width at once (fewer when the machine's threads are busy with other tests: not judged).
        #expect(counts.peak <= 2 && counts.entered == 6)
        // Two jobs that hold their slots until released fill the executor; a third waits, is cancelled, and never
        // runs. Each step waits for the state it needs (bounded), not for a fixed time.
        let release = DispatchSemaphore(value: 0)
        let started = Counts()
        let blockers = (0..<2).map { _ in
            Task { try await executor.run { started.enter(); release.wait() } }
        }
        try await Self.waitUntil("both blockers run") { started.entered == 2 }
        let waiting = Task { try await executor.run { counts.enter() } }
        try await Self.waitUntil("the third job queues") { executor.waiting == 1 }
        waiting.cancel()
        await #expect(throws: PipelineError.cancelled) { try await waiting.value }
        release.signal(); release.signal()
        for blocker in blockers { try await blocker.value }
        // The queue is first in, first out: a job submitted now runs after anything still queued would have.
        try await executor.run {}
        #expect(counts.entered == 6, "the cancelled job ran")
    }

    /// Polls `condition` every millisecond for at most 10 s; fails the test with `what` when it never holds.
    static func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TestSupportError("timed out waiting until \(what)") }
            try await Task.sleep(nanoseconds: 1_000_000)
        }
    }
}

/// Jobs running now, the most at once, and how many ever started.
private final class Counts: Sendable {
    private let state = Mutex((running: 0, peak: 0, entered: 0))
    func enter() { state.withLock { $0.running += 1; $0.entered += 1; $0.peak = max($0.peak, $0.running) } }
    func leave() { state.withLock { $0.running -= 1 } }
    var peak: Int { state.withLock { $0.peak } }
    var entered: Int { state.withLock { $0.entered } }
}
