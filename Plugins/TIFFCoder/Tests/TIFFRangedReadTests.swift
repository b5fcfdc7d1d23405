import Foundation
import PipelineHost
import Testing
import TestSupport

/// A TIFF read by ranges (`IP_DECODE_EXTENSION_SOURCE`, what the host does for a large local file): libtiff reads
/// the directories, strips and tiles it needs through the host's reader, so the decode equals the in-memory one bit
/// for bit, and a thumbnail of a pyramid reads little more than its reduced copy instead of the whole file.
@Suite("TIFF read by ranges")
struct TIFFRangedReadTests {
    @Test("strips and tiles, full size and reduced: by ranges equals in memory", arguments: [
        ["-compress", "lzw", "-define", "tiff:rows-per-strip=16"],
        ["-compress", "zip", "-define", "tiff:tile-geometry=256x256"],
        ["-compress", "none", "-alpha", "set", "-define", "tiff:rows-per-strip=8"],
    ])
    func rangedEqualsInMemory(_ arguments: [String]) throws {
        let folder = try TestPaths.temporaryDirectory("tiff-ranged")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try TIFFShrinkOnLoadTests.tiff(arguments, folder: folder, name: "page")
        #expect(bytes.count > 4 * RangedSource.prefixLength, "the fixture must be larger than the prefix")
        let coders = try TIFFShrinkOnLoadTests.coders()
        let source = try #require(RangedSource(url: folder + "/page.tif", threshold: 0))
        let route = try #require(coders.rangedRoute(for: source), "the TIFF coder must accept ranged reads")
        let sizes: [PixelSize?] = [nil, PixelSize(width: 120, height: 120)]
        for size in sizes {
            let options = DecodeOptions(thumbnailSize: size)
            let ranged = try coders.decode(source: source, options: options, route: route)
            let memory = try coders.decode(data: bytes, options: options)
            #expect((ranged.width, ranged.height, ranged.pixelFormat) == (memory.width, memory.height, memory.pixelFormat))
            #expect(ranged.bytes == memory.bytes, "\(arguments) at \(size.map { "\($0)" } ?? "full size")")
        }
        let info = try coders.probe(source: source, route: route)
        #expect((info.width, info.height) == (1500, 1000))
    }

    @Test("a pyramid's thumbnail by ranges reads its reduced copy, not the file")
    func pyramidThumbnailReadsLittle() throws {
        let folder = try TestPaths.temporaryDirectory("tiff-ranged-pyramid")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try TIFFPyramidTests.pyramid(["--pyramid"], folder: folder)
        let coders = try TIFFPyramidTests.coders()
        let source = try #require(RangedSource(url: "file://" + folder + "/pyramid.tif", threshold: 0))
        let route = try #require(coders.rangedRoute(for: source))
        let options = DecodeOptions(thumbnailSize: PixelSize(width: 150, height: 150))
        let ranged = try coders.decode(source: source, options: options, route: route)
        let memory = try coders.decode(data: bytes, options: options)
        #expect((ranged.width, ranged.height) == (150, 113))
        #expect(ranged.bytes == memory.bytes)
        // The 200×150 copy is a small fraction of a 1600×1200 pyramid; the prefix and directories add a little.
        let past = source.bytesRead
        #expect(past < source.size / 4, "read \(past) bytes past the prefix of a \(source.size)-byte pyramid")
    }

    @Test("a TIFF cut short fails by ranges with one clear error, as in memory")
    func truncatedFileFails() throws {
        let folder = try TestPaths.temporaryDirectory("tiff-ranged-cut")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try TIFFShrinkOnLoadTests.tiff(["-compress", "none", "-define", "tiff:rows-per-strip=16"], folder: folder, name: "page")
        // libtiff writes the directory after the pixels, so the cut loses it: the header points past the end.
        let cut = Array(bytes.prefix(bytes.count * 3 / 5))
        _ = try TestFiles.write(cut, to: folder + "/cut.tif")
        let coders = try TIFFShrinkOnLoadTests.coders()
        let source = try #require(RangedSource(url: folder + "/cut.tif", threshold: 0))
        let memoryFailed = (try? coders.decode(data: cut, options: DecodeOptions())) == nil
        let route = try #require(coders.rangedRoute(for: source), "the prefix still sniffs as TIFF")
        var rangedMessage = ""
        do {
            _ = try coders.decode(source: source, options: DecodeOptions(), route: route)
        } catch {
            rangedMessage = "\(error)"
        }
        #expect(memoryFailed)
        #expect(!rangedMessage.isEmpty && !rangedMessage.contains("\n"), "\(rangedMessage)")
    }
}
