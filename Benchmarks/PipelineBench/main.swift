// In-process measurements of the pipeline that a command-line comparison cannot make:
// memory-cache hit latency (with and without a transformer chain in the key), the cost of each transformer and of a
// typical chain on a 256 px thumbnail, three sizes of one source at once (shared full decode) vs one after another,
// disk-cache hit vs full decode, and HTTP fetch throughput with N concurrent transfers.
// Usage: pipeline-bench <plugins.d> <work dir> [base URL of the test server serving /img<i>.png]
import Foundation
import PipelineHost

@main
enum PipelineBench {
    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count >= 3 else { print("usage: pipeline-bench <plugins.d> <work dir> [server base URL]"); exit(2) }
        let host = PluginHost(searchPath: PluginSearchPath(directories: [arguments[1]]))
        let work = arguments[2]
        let source = work + "/bench-source.png"
        var pixels: [UInt8] = []
        pixels.reserveCapacity(2000 * 1500 * 4)
        for y in 0..<1500 { for x in 0..<2000 { pixels += [UInt8(x & 255), UInt8(y & 255), UInt8((x ^ y) & 255), 255] } }
        try Data(try host.coders.encode(try Image(width: 2000, height: 1500, bytes: pixels), format: "png"))
            .write(to: URL(fileURLWithPath: source))

        // 1. Memory-cache hit latency through the whole manager (key building + lookup).
        let memory = ImageManager(host: host, configuration: ImageManagerConfiguration(memoryCache: MemoryCache()))
        let request = ImageRequest(url: source, options: DecodeOptions(thumbnailSize: PixelSize(width: 256, height: 256)))
        _ = try await memory.image(for: request)
        let hits = 100_000
        // Measured off the main actor: from there every await would hop threads twice and time the hop, not the cache.
        let hitTime = try await Task.detached {
            let start = now()
            for _ in 0..<hits { _ = try await memory.image(for: request) }
            return now() - start
        }.value
        var start = now()
        print(String(format: "memory-cache hit: %.2f µs per request (%d requests)", hitTime / Double(hits) * 1e6, hits))
        let chain: [any ImageTransforming] = [ImageTransformers.Crop(aspectRatio: 1, 1), ImageTransformers.Sharpen(),
                                              ImageTransformers.RoundedCorners(radius: 16)]
        let chained = ImageRequest(url: source, options: request.options, transformers: chain)
        _ = try await memory.image(for: chained)
        let chainedHitTime = try await Task.detached {
            let start = now()
            for _ in 0..<hits { _ = try await memory.image(for: chained) }
            return now() - start
        }.value
        print(String(format: "memory-cache hit with a 3-transformer chain in the key: %.2f µs per request", chainedHitTime / Double(hits) * 1e6))

        // 1b. Transformers on a 256x192 thumbnail, one core's wall time per call.
        let thumbnail = try await memory.image(for: request)
        let transformers: [(String, any ImageTransforming)] = [
            ("crop 1:1", ImageTransformers.Crop(aspectRatio: 1, 1)), ("rotate 90", ImageTransformers.Rotate(.quarter)),
            ("flip", ImageTransformers.Flip(.horizontal)), ("grayscale", ImageTransformers.Grayscale()),
            ("blur 2", ImageTransformers.GaussianBlur(sigma: 2)), ("sharpen", ImageTransformers.Sharpen()),
            ("rounded 16", ImageTransformers.RoundedCorners(radius: 16)), ("circle", ImageTransformers.Circle()),
            ("flatten", ImageTransformers.Flatten(background: RGBAColor(red: 255, green: 255, blue: 255))),
            ("chain: crop 1:1 + sharpen + rounded 16", ImageTransformers.Chain(chain)),
        ]
        for (name, transformer) in transformers {
            let calls = 200
            start = now()
            for _ in 0..<calls { _ = try transformer.transform(thumbnail) }
            print(String(format: "transformer %@ on %dx%d: %.3f ms", name, thumbnail.width, thumbnail.height, (now() - start) / Double(calls) * 1000))
        }

        // 1c. Three sizes of one source asked at once (one shared full decode) vs the same three one after another.
        let sizes = [512, 256, 128].map { PixelSize(width: $0, height: $0) }
        let shared = ImageManager(host: host, configuration: ImageManagerConfiguration(memoryCache: nil))
        start = now()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for size in sizes { group.addTask { _ = try await shared.image(for: ImageRequest(url: source, options: DecodeOptions(thumbnailSize: size))) } }
            try await group.waitForAll()
        }
        let together = now() - start
        let serial = ImageManager(host: host, configuration: ImageManagerConfiguration(memoryCache: nil))
        start = now()
        for size in sizes { _ = try await serial.image(for: ImageRequest(url: source, options: DecodeOptions(thumbnailSize: size))) }
        let apart = now() - start
        print(String(format: "3 sizes of one 2000x1500 PNG: at once %.1f ms (%d decode), one after another %.1f ms (%d decodes)",
                     together * 1000, shared.statistics.decodes, apart * 1000, serial.statistics.decodes))

        // 2. Disk-cache hit (thumbnail stored as raw pixels) vs a full decode + downscale of the 3-MP PNG.
        let disk = try DiskCache(directory: work + "/disk-cache")
        try await disk.removeAll()
        let diskManager = ImageManager(host: host, configuration: ImageManagerConfiguration(memoryCache: nil, dataCache: disk, cacheLocalFiles: true))
        _ = try await diskManager.image(for: request)
        let rounds = 20
        start = now()
        for _ in 0..<rounds { _ = try await diskManager.image(for: request) }
        let diskTime = now() - start
        let noCache = ImageManager(host: host, configuration: ImageManagerConfiguration(memoryCache: nil))
        start = now()
        for _ in 0..<rounds { _ = try await noCache.image(for: request) }
        let decodeTime = now() - start
        print(String(format: "2000x1500 PNG -> 256 px: disk-cache hit %.2f ms, full decode %.2f ms (%.1fx faster)",
                     diskTime / Double(rounds) * 1000, decodeTime / Double(rounds) * 1000, decodeTime / diskTime))

        // 3. Fetch throughput: 200 small images from the local server.
        guard arguments.count >= 4 else { return }
        let base = arguments[3]
        for concurrency in [1, 6, 24] {
            let fetcher = ImageManager(host: host, configuration: ImageManagerConfiguration(memoryCache: nil))
            start = now()
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    var next = 0
                    func add() {
                        let url = "\(base)/img\(next).png?c=\(concurrency)"
                        next += 1
                        group.addTask { _ = try await fetcher.data(for: ImageRequest(url: url)) }
                    }
                    for _ in 0..<concurrency { add() }
                    while try await group.next() != nil { if next < 200 { add() } }
                }
            }
            let time = now() - start
            print(String(format: "200 fetches, %2d concurrent: %.1f ms (%.0f per second)", concurrency, time * 1000, 200 / time))
        }
    }
}
