import Foundation
import PipelineHost
import Testing
import TestSupport

/// Frames and incremental decoding follow the isolation policy as still decodes do: an isolated coder's animation
/// is decoded in a worker (one request for all frames), and no incremental decoder is made for it in the host.
@Suite(.serialized) struct IsolatedAnimationTests {
    @Test("an isolated coder's frames come from a worker, identical to the in-process frames, with the loop count")
    func framesThroughTheWorker() throws {
        let folder = try IsolationSupport.pluginFolder(with: ["libGIFCoder.so", "libJPEGCoder.so"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let host = IsolationSupport.host(folder)
        let frames = try (0..<4).map { n in
            try Image(width: 20, height: 12, bytes: (0..<(20 * 12)).flatMap { i in [UInt8(n * 60), UInt8(i % 251), 90, 255] })
                .with(durationMilliseconds: 80)
        }
        var encode = EncodeOptions()
        encode.loopCount = 3
        let gif = try host.coders.encode(frames: frames, format: "gif", options: encode)
        let options = DecodeOptions(thumbnailSize: PixelSize(width: 10, height: 0))
        let local = try host.coders.animation(data: gif, options: options, isolation: .inProcess)

        let pool = try IsolationSupport.attachPool(to: host, size: 1)
        defer { pool.shutdown() }
        let before = pool.statistics.requests
        let isolated = try host.coders.animation(data: gif, options: options, transformers: [ImageTransformers.Flip(.horizontal)],
                                                 isolation: .isolated)
        #expect(pool.statistics.requests == before + 1, "one worker request for every frame")
        #expect(isolated.frames.count == 4 && isolated.loopCount == 3)
        for (a, b) in zip(local.frames, isolated.frames) {
            #expect(try ImageTransformers.Flip(.horizontal).transform(a).bytes == b.bytes)
            #expect(a.durationMilliseconds == b.durationMilliseconds)
        }
        // The lazy reader under an isolating default policy hands out the worker's frames.
        host.coders.isolator = Isolator(policy: .isolated, pool: pool)
        let reader = try host.coders.frames(data: gif, options: options)
        #expect(try reader.readAll().map(\.bytes) == local.frames.map(\.bytes))
        // No incremental decoder runs in the host for a coder the policy isolates; in process there is one.
        let jpeg = try host.coders.encode(frames[0], format: "jpg")
        #expect(try host.coders.incrementalDecoder(forPrefix: jpeg, options: options) == nil)
        host.coders.isolator = Isolator(policy: .inProcess, pool: pool)
        #expect(try host.coders.incrementalDecoder(forPrefix: jpeg, options: options) != nil)
    }
}
