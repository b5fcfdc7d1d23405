import Foundation
import PipelineHost
import Testing
import TestSupport

/// Incremental decoding through the coder's incremental slots (driven by `IncrementalHarness`).
@Suite("WebP incremental decoding")
struct WebPIncrementalTests {
    /// Feeds growing prefixes (every `step` bytes, then everything as final) and checks the answers: NEED_MORE
    /// first, then previews whose decoded rows equal the final image's and whose other rows are transparent, then
    /// the final image equal to the one-shot decode. Returns how many previews were partial.
    static func feed(_ bytes: [UInt8], step: Int, thumbnail: (Int, Int)? = nil,
                     sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let coders = try WebPTesting.coders()
        let oneShot = try coders.decode(data: bytes, options: DecodeOptions(
            thumbnailSize: thumbnail.map { PixelSize(width: $0.0, height: $0.1) }))
        let harness = try IncrementalHarness(library: WebPTesting.library, thumbnail: thumbnail)
        var results: [(Int, IncrementalHarness.Result)] = []
        for length in stride(from: 16, to: bytes.count, by: step) {
            results.append((length, harness.update(Array(bytes.prefix(length)), isFinal: false)))
        }
        let final = harness.update(bytes, isFinal: true)
        #expect(final.status == .ok, "final: \(final.message)", sourceLocation: sourceLocation)
        #expect((final.width, final.height) == (oneShot.width, oneShot.height), sourceLocation: sourceLocation)
        #expect(final.bytes == oneShot.bytes, "the final image differs from the one-shot decode", sourceLocation: sourceLocation)
        #expect(final.alphaStraight == (oneShot.alphaMode == .straight), sourceLocation: sourceLocation)
        #expect(results.first?.1.status == .needMore, sourceLocation: sourceLocation)
        let rowBytes = oneShot.width * 4
        let reference = oneShot.bytes
        var partial = 0
        var lastRows = 0
        for (length, result) in results {
            #expect(result.status == .needMore || result.status == .ok, "\(length): \(result.message)", sourceLocation: sourceLocation)
            guard result.status == .ok, let preview = result.bytes else {
                #expect(lastRows == 0, "NEED_MORE after a preview at \(length)", sourceLocation: sourceLocation)
                continue
            }
            #expect(result.alphaStraight, "previews have transparent rows", sourceLocation: sourceLocation)
            // The decoded rows: the longest prefix of rows equal to the final image.
            var rows = 0
            while rows < oneShot.height, preview[(rows * rowBytes)..<((rows + 1) * rowBytes)] == reference[(rows * rowBytes)..<((rows + 1) * rowBytes)] {
                rows += 1
            }
            let rest = preview[(rows * rowBytes)...]
            #expect(rest.allSatisfy { $0 == 0 }, "preview at \(length): rows after \(rows) are neither final nor empty", sourceLocation: sourceLocation)
            #expect(rows >= lastRows, "rows went backwards at \(length)", sourceLocation: sourceLocation)
            lastRows = rows
            if rows < oneShot.height { partial += 1 }
        }
        return partial
    }

    @Test("lossy, lossless and alpha: NEED_MORE, then growing previews, then the one-shot image")
    func progressive() throws {
        guard WebPTesting.hasTools else { try Skip.because(WebPTesting.missing, bootstrapProvides: true) }
        let folder = try WebPTesting.workspace()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try WebPTesting.run("cwebp -quiet -q 70 photo.png -o lossy.webp && cwebp -quiet -lossless photo.png -o lossless.webp && "
                            + "cwebp -quiet -q 70 alpha.png -o alpha.webp", in: folder)
        for name in ["lossy.webp", "lossless.webp", "alpha.webp"] {
            let bytes = try TestFiles.read(folder + "/" + name)
            let partial = try Self.feed(bytes, step: max(1, bytes.count / 40))
            print("WebP incremental \(name) (\(bytes.count) bytes, 40 steps): \(partial) partial previews")
            #expect(partial > 0, "\(name): no partial preview")
        }
    }

    @Test("shrink-on-load applies to incremental decoding too, with the same result as decode")
    func scaled() throws {
        guard WebPTesting.hasTools else { try Skip.because(WebPTesting.missing, bootstrapProvides: true) }
        let folder = try WebPTesting.workspace()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try WebPTesting.run("cwebp -quiet -q 70 photo.png -o lossy.webp", in: folder)
        let bytes = try TestFiles.read(folder + "/lossy.webp")
        _ = try Self.feed(bytes, step: bytes.count / 10, thumbnail: (64, 64))
    }

    @Test("data that ends before the last row is .truncated when final")
    func truncated() throws {
        guard WebPTesting.hasTools else { try Skip.because(WebPTesting.missing, bootstrapProvides: true) }
        let folder = try WebPTesting.workspace()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try WebPTesting.run("cwebp -quiet -q 70 photo.png -o lossy.webp", in: folder)
        let bytes = try TestFiles.read(folder + "/lossy.webp")
        // Not the very end: a RIFF chunk of odd size ends with a padding byte the decoder does not need.
        for cut in [10, 30, bytes.count / 2, bytes.count * 9 / 10] {
            let harness = try IncrementalHarness(library: WebPTesting.library)
            _ = harness.update(Array(bytes.prefix(cut / 2)), isFinal: false)
            let result = harness.update(Array(bytes.prefix(cut)), isFinal: true)
            #expect(result.status == .truncated, "cut at \(cut): \(result.status) \(result.message)")
        }
    }

    @Test("an animated WebP answers NEED_MORE until the end, then frame 0")
    func animated() throws {
        guard WebPTesting.hasTools else { try Skip.because(WebPTesting.missing, bootstrapProvides: true) }
        let folder = try WebPTesting.workspace()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try WebPAnimationTests.makeAnimation(in: folder)
        let harness = try IncrementalHarness(library: WebPTesting.library)
        for length in stride(from: 8, to: bytes.count, by: 97) {
            #expect(harness.update(Array(bytes.prefix(length)), isFinal: false).status == .needMore)
        }
        let final = harness.update(bytes, isFinal: true)
        #expect(final.status == .ok, "\(final.message)")
        #expect(final.bytes == (try WebPTesting.coders().decode(data: bytes).bytes))
    }
}
