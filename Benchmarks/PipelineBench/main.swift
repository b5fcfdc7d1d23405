// In-process measurements of the pipeline that a command-line comparison cannot make:
// memory-cache hit latency, disk-cache hit vs full decode, and HTTP fetch throughput with N concurrent transfers.
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
        let memory = ImageManager(host: host, configuration: ImagePipelineConfiguration(memoryCache: MemoryCache()))
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

        // 2. Disk-cache hit (thumbnail stored as raw pixels) vs a full decode + downscale of the 3-MP PNG.
        let disk = try DiskCache(directory: work + "/disk-cache")
        try await disk.removeAll()
        let diskManager = ImageManager(host: host, configuration: ImagePipelineConfiguration(memoryCache: nil, dataCache: disk, cacheLocalFiles: true))
        _ = try await diskManager.image(for: request)
        let rounds = 20
        start = now()
        for _ in 0..<rounds { _ = try await diskManager.image(for: request) }
        let diskTime = now() - start
        let noCache = ImageManager(host: host, configuration: ImagePipelineConfiguration(memoryCache: nil))
        start = now()
        for _ in 0..<rounds { _ = try await noCache.image(for: request) }
        let decodeTime = now() - start
        print(String(format: "2000x1500 PNG -> 256 px: disk-cache hit %.2f ms, full decode %.2f ms (%.1fx faster)",
                     diskTime / Double(rounds) * 1000, decodeTime / Double(rounds) * 1000, decodeTime / diskTime))

        // 3. Fetch throughput: 200 small images from the local server.
        guard arguments.count >= 4 else { return }
        let base = arguments[3]
        for concurrency in [1, 6, 24] {
            let fetcher = ImageManager(host: host, configuration: ImagePipelineConfiguration(memoryCache: nil))
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
