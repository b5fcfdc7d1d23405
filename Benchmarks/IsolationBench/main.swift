// The cost of isolated decoding with a warm worker pool, measured in one process against in-process decoding of
// the same inputs, plus the throughput of a mixed batch. Benchmarks/isolation.py builds the inputs and runs this.
// Usage: isolation-bench <plugins.d> <inputs dir> <worker executable> [runs]
//   inputs: icon.svg, complex.svg, text-page.pdf (and big.png, big.jpg are made here with the project's encoders)
import Foundation
import PipelineHost

@main
enum IsolationBench {
    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// Median milliseconds of `runs` calls of each body (after two warm-up calls each), alternating the two so
    /// that machine noise (a shared 2-core box) hits both alike.
    static func time(_ runs: Int, _ first: () throws -> Void, _ second: () throws -> Void) rethrows -> (Stats, Stats) {
        for _ in 0..<2 {
            try first()
            try second()
        }
        var a: [Double] = [], b: [Double] = []
        for _ in 0..<runs {
            var start = now()
            try first()
            a.append((now() - start) * 1000)
            start = now()
            try second()
            b.append((now() - start) * 1000)
        }
        return (Stats(a), Stats(b))
    }

    struct Stats {
        let median: Double
        let minimum: Double
        init(_ samples: [Double]) {
            median = IsolationBench.median(samples)
            minimum = samples.min() ?? 0
        }
    }

    static func main() throws {
        let arguments = CommandLine.arguments
        guard arguments.count >= 4 else {
            print("usage: isolation-bench <plugins.d> <inputs dir> <worker executable> [runs]")
            exit(2)
        }
        let inputs = arguments[2]
        let runs = arguments.count > 4 ? Int(arguments[4]) ?? 30 : 30
        let host = PluginHost(searchPath: PluginSearchPath(directories: [arguments[1]]), cachePath: nil)
        let pool = WorkerPool(configuration: WorkerPool.Configuration(
            executable: arguments[3], pluginDirectories: [arguments[1]], registryCachePath: nil))
        host.coders.isolator = Isolator(pool: pool)
        try pool.prewarm()
        func load(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: inputs + "/" + name))) }

        // A 12-megapixel photo-like image, encoded by the project's own PNG and JPEG coders.
        var pixels = [UInt8](repeating: 0, count: 4000 * 3000 * 4)
        for y in 0..<3000 {
            for x in 0..<4000 {
                let i = (y * 4000 + x) * 4
                pixels[i] = UInt8(truncatingIfNeeded: x / 16 + y / 32)
                pixels[i + 1] = UInt8(truncatingIfNeeded: (x * y) >> 10)
                pixels[i + 2] = UInt8(truncatingIfNeeded: (x ^ y) >> 3)
                pixels[i + 3] = 255
            }
        }
        let big = try Image(width: 4000, height: 3000, bytes: pixels)
        let bigPNG = try host.coders.encode(big, format: "png")
        let bigJPEG = host.coders.canEncode(format: "jpg") ? try host.coders.encode(big, format: "jpg", options: EncodeOptions(quality: 85)) : nil

        let tiny = try host.coders.encode(try Image(width: 1, height: 1, bytes: [1, 2, 3, 255]), format: "png")
        let thumb = DecodeOptions(thumbnailSize: PixelSize(width: 256, height: 256))
        var cases: [(String, [UInt8], DecodeOptions)] = [
            ("1x1 PNG (pure round trip)", tiny, DecodeOptions()),
            ("SVG icon 24 px -> 64 px", try load("icon.svg"), DecodeOptions(thumbnailSize: PixelSize(width: 64, height: 64))),
            ("SVG complex 1200x900 -> 256 px", try load("complex.svg"), thumb),
            ("PDF text page -> 256 px", try load("text-page.pdf"), thumb),
            ("PDF text page at 72 dpi (595x842)", try load("text-page.pdf"), DecodeOptions()),
            ("PNG 4000x3000 (\(bigPNG.count >> 10) KB) -> 256 px", bigPNG, thumb),
            ("PNG 4000x3000 full size (48 MB out)", bigPNG, DecodeOptions()),
        ]
        if let bigJPEG { cases.append(("JPEG 4000x3000 -> 256 px", bigJPEG, thumb)) }

        print(String(format: "%d runs per case after warm-up, medians; pool of %d warm workers", runs, pool.configuration.size))
        print("case".padding(toLength: 40, withPad: " ", startingAt: 0)
              + "  in-process ms  isolated ms  overhead ms   (best of runs: in-process, isolated, overhead)")
        for (name, data, options) in cases {
            let (local, isolated) = try time(runs, { _ = try host.coders.decode(data: data, options: options, isolation: .inProcess) },
                                             { _ = try host.coders.decode(data: data, options: options, isolation: .isolated) })
            print(name.padding(toLength: 40, withPad: " ", startingAt: 0)
                  + String(format: "  %13.3f  %11.3f  %11.3f   (%.3f, %.3f, %.3f)", local.median, isolated.median,
                           isolated.median - local.median, local.minimum, isolated.minimum, isolated.minimum - local.minimum))
        }

        // Throughput: 200 mixed files as 256 px thumbnails, as many at once as there are processors.
        let mix: [[UInt8]] = [try load("icon.svg"), try load("complex.svg"), try load("text-page.pdf"), bigPNG, tiny]
            + (bigJPEG.map { [$0] } ?? [])
        let batch = (0..<200).map { mix[$0 % mix.count] }
        let names = "icon.svg, complex.svg, text-page.pdf, 12 MP PNG, 1x1 PNG" + (bigJPEG == nil ? "" : ", 12 MP JPEG")
        print("\nbatch of 200 mixed files (\(names)) -> 256 px, \(pool.configuration.size) at a time:")
        for isolation in [Isolation.inProcess, .isolated, .automatic] {
            let start = now()
            let failures = Failures()
            DispatchQueue.concurrentPerform(iterations: batch.count) { index in
                do { _ = try host.coders.decode(data: batch[index], options: thumb, isolation: isolation) } catch { failures.add() }
            }
            let elapsed = now() - start
            print("  " + isolation.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
                  + String(format: " %8.1f ms  %6.1f files/s", elapsed * 1000, Double(batch.count) / elapsed)
                  + (failures.count == 0 ? "" : "  (\(failures.count) failed)"))
        }
        let statistics = pool.statistics
        print("pool: \(statistics.requests) requests, \(statistics.workersStarted) workers started, \(statistics.crashes) crashes")
        pool.shutdown()
    }
}

/// `@unchecked Sendable`: every access holds the lock.
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add() { lock.lock(); value += 1; lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return value }
}
