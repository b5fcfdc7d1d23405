import Foundation
import PipelineHost
import Testing
import TestSupport

/// `imagepipe thumbnail` of a large local PNG decodes it from the file by ranges (as `render` does through the image
/// manager): the thumbnail is the one the whole bytes give, and the process never holds the file.
@Suite struct RangedBatchTests {
    @Test("a batch thumbnail of a 20 MB PNG equals the in-memory one and peaks below the file's size")
    func batchThumbnailReadsByRanges() throws {
        let folder = try TestPaths.temporaryDirectory("ranged-batch")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let host = try PluginSandbox.host(loading: ["libPNGCoder.so"])
        // Opaque noise does not compress: a 2600x2600 PNG is about 20 MB (RGB), over the 16 MiB ranged-read threshold.
        var pixels = SplitMix64.opaqueNoise(width: 2600, height: 2600, seed: 41)
        let png = try host.coders.encode(try Image(width: 2600, height: 2600, bytes: pixels), format: "png", options: EncodeOptions(speed: 10))
        pixels = []
        #expect(png.count > RangedSource.defaultThreshold)
        _ = try TestFiles.write(png, to: folder + "/big.png")
        // The child's peak RSS, as the kernel counts it (ru_maxrss of the waited-for children, in KiB). Its own
        // registry cache, filled first: with a stale one the CLI inspects every plugin in a child `__scan` that
        // opens them all, and that child's peak would count (after a build, the first CLI run of the suite pays it).
        let environment = ["IMAGEPIPE_REGISTRY_CACHE": folder + "/registry"]
        #expect(try CommandLine.run(TestPaths.imagepipeBinary, ["coders"], environment: environment).status == 0)
        let script = """
            import resource, subprocess, sys
            status = subprocess.run(sys.argv[1:]).returncode
            print(status, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            """
        let result = try CommandLine.run("/usr/bin/python3", ["-c", script, TestPaths.imagepipeBinary, "thumbnail", folder + "/big.png",
                                                              "--size", "200", "--out-dir", folder + "/out", "-o", "%s-%w.png"],
                                         environment: environment)
        let fields = result.stdout.split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(fields.first == "0", "\(result.stdout) \(result.stderr)")
        let peakKiB = try #require(fields.count == 2 ? Int(fields[1]) : nil, "\(result.stdout)")
        // Holding the file alone would be 20 MB on top of the process's own ~14 MB (and libdeflate's whole-stream
        // inflate as much again); by ranges the lane holds rows and the 200 px result.
        #expect(peakKiB * 1024 < png.count, "peak RSS \(peakKiB) KiB for a \(png.count)-byte source")
        let written = try host.coders.decode(data: try TestFiles.read(folder + "/out/big-200.png"), options: DecodeOptions())
        let inMemory = try host.coders.decode(data: png, options: DecodeOptions(thumbnailSize: PixelSize(width: 200, height: 200)))
        #expect((written.width, written.height) == (200, 200))
        #expect(written.bytes == inMemory.bytes)
    }
}
