import Foundation
import PipelineHost
import Testing
import TestSupport

/// A PNG read by ranges (`IP_DECODE_EXTENSION_SOURCE`, what the host does for a large local file): the coder
/// reads its chunks through the host's reader, past the prefix it is handed, and returns the pixels of the decode
/// from bytes in memory, bit for bit, for full, reduced (shrink-on-load), 16-bit and interlaced decodes. A file
/// cut short is reported as truncated, as it is in memory.
@Suite("PNG read by ranges")
struct PNGRangedReadTests {
    @Test("full, reduced and 16-bit decodes by ranges equal the in-memory ones", arguments: [
        ["-depth", "8"], ["-depth", "16"], ["-depth", "8", "-interlace", "PNG"],
    ])
    func rangedEqualsInMemory(_ arguments: [String]) throws {
        let folder = try TestPaths.temporaryDirectory("png-ranged")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try PNGShrinkOnLoadTests.plasma(arguments, folder: folder, name: "plasma")
        #expect(bytes.count > 4 * RangedSource.prefixLength, "the fixture must be larger than the prefix")
        let coders = try PNGTesting.coders()
        let source = try #require(RangedSource(url: folder + "/plasma.png", threshold: 0))
        #expect(source.size == UInt64(bytes.count) && source.prefix.count == RangedSource.prefixLength)
        let route = try #require(coders.rangedRoute(for: source))
        #expect(route.coder.descriptor.id == PNGTesting.coderID && !route.isIsolated)
        let sizes: [PixelSize?] = [nil, PixelSize(width: 120, height: 120)]
        for size in sizes {
            let options = DecodeOptions(thumbnailSize: size, highBitDepth: arguments.contains("16"))
            let ranged = try coders.decode(source: source, options: options, route: route)
            let memory = try coders.decode(data: bytes, options: options)
            #expect((ranged.width, ranged.height, ranged.pixelFormat) == (memory.width, memory.height, memory.pixelFormat))
            #expect(ranged.bytes == memory.bytes, "\(arguments) at \(size.map { "\($0)" } ?? "full size")")
        }
        #expect(try coders.probe(source: source, route: route).width == 1500)
        // Everything after the prefix came through the reader (twice over: one full decode, one reduced).
        #expect(source.bytesRead >= 2 * (source.size - UInt64(source.prefix.count)), "read \(source.bytesRead) of \(source.size)")
    }

    @Test("a PNG cut short fails as truncated by ranges, as in memory")
    func truncatedFileIsTruncated() throws {
        let folder = try TestPaths.temporaryDirectory("png-ranged-cut")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try PNGShrinkOnLoadTests.plasma(["-depth", "8"], folder: folder, name: "plasma")
        let cut = Array(bytes.prefix(bytes.count * 3 / 5))
        _ = try TestFiles.write(cut, to: folder + "/cut.png")
        let coders = try PNGTesting.coders()
        let source = try #require(RangedSource(url: "file://" + folder + "/cut.png", threshold: 0))
        let route = try #require(coders.rangedRoute(for: source))
        for decode in [{ try coders.decode(source: source, options: DecodeOptions(), route: route) },
                       { try coders.decode(data: cut, options: DecodeOptions()) }] {
            #expect {
                _ = try decode()
            } throws: { error in
                guard case PipelineError.decodingFailed(_, let status, _) = error else { return false }
                return status == .truncated
            }
        }
    }
}
