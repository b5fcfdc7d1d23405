import Foundation
import PipelineHost
import TestSupport
import Testing

/// A file whose secondary item references a missing item still decodes its primary image.
///
/// libheif 1.15 resolves every reference while reading, so a thumbnail pointing at a missing image made the whole
/// file unreadable. The fixture is made here: `heif-enc -t` writes a photo with a thumbnail, then the `thmb`
/// reference is pointed at item 77, which the file does not have.
@Suite struct HEIFBrokenReferenceTests {
    /// (sound file, broken copy), or nil when heif-enc is missing.
    static func files() throws -> (good: [UInt8], broken: [UInt8])? {
        guard CommandLine.hasTool("heif-enc"), CommandLine.hasTool("convert") else { try Skip.because("heif-enc (libheif-examples) or ImageMagick missing", bootstrapProvides: true) }
        let folder = try TestPaths.temporaryDirectory("heif-broken-ref")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let made = try CommandLine.shell(
            "cd '\(folder)' && convert -size 256x192 -seed 3 plasma:fractal p.png && heif-enc -q 80 -t 64 p.png -o t.heic")
        try #require(made.status == 0, "\(made.stderr)")
        let good = try TestFiles.read(folder + "/t.heic")
        var broken = good
        let thmb = try #require(good.firstRange(of: Array("thmb".utf8)), "heif-enc wrote no thmb reference")
        // thmb payload (iref version 0): from_item_ID u16, reference_count u16, to_item_ID u16.
        let target = thmb.upperBound + 4
        broken[target] = 0
        broken[target + 1] = 77
        return (good, broken)
    }

    @Test func thePrimaryImageDecodesAndInfoNamesTheIgnoredReference() throws {
        guard let (good, broken) = try Self.files() else { return }
        let expected = try HEIFTest.decode(good)
        let image = try HEIFTest.decode(broken)
        #expect((image.width, image.height) == (256, 192))
        #expect(image.bytes == expected.bytes, "the primary image must decode exactly as in the sound file")
        let info = try HEIFTest.probe(broken)
        #expect(info.details.contains("ignored references to missing items: thmb #"), "\(info.details)")
        #expect(info.details.contains("-> #77"), "\(info.details)")
    }

    @Test func aSoundFileReportsNoIgnoredReference() throws {
        guard let (good, _) = try Self.files() else { return }
        let info = try HEIFTest.probe(good)
        #expect(!info.details.contains("ignored references"), "\(info.details)")
    }

    @Test func aPrimaryThatNeedsTheMissingItemStillFails() throws {
        guard let (good, _) = try Self.files() else { return }
        // Point the primary item (pitm) at an item that does not exist: no repair can make that decodable.
        var broken = good
        let pitm = try #require(good.firstRange(of: Array("pitm".utf8)))
        broken[pitm.upperBound + 4] = 0
        broken[pitm.upperBound + 5] = 99
        let status = failureStatus { _ = try HEIFTest.decode(broken) }
        #expect(status == .invalidData, "\(String(describing: status))")
    }

    /// One camera's files name a thumbnail in `pitm` (a grid that is the `thmb` of the only real image): libheif
    /// reads them but refuses to open that item, while heif-convert decodes the image the thumbnail belongs to.
    /// heif-enc's own thumbnail is such a grid item, so pointing `pitm` at it rebuilds the case.
    @Test func aPitmThatNamesAThumbnailDecodesTheImageTheThumbnailBelongsTo() throws {
        guard let (good, _) = try Self.files() else { return }
        var odd = good
        let thmb = try #require(good.firstRange(of: Array("thmb".utf8)), "heif-enc wrote no thmb reference")
        let thumbnailID = Int(good[thmb.upperBound]) << 8 | Int(good[thmb.upperBound + 1])
        let ownerID = Int(good[thmb.upperBound + 4]) << 8 | Int(good[thmb.upperBound + 5])
        let pitm = try #require(good.firstRange(of: Array("pitm".utf8)))
        odd[pitm.upperBound + 4] = UInt8(thumbnailID >> 8)
        odd[pitm.upperBound + 5] = UInt8(thumbnailID & 0xFF)
        let expected = try HEIFTest.decode(good)
        let image = try HEIFTest.decode(odd)
        #expect((image.width, image.height) == (256, 192), "the real image, not the 64x48 thumbnail")
        #expect(image.bytes == expected.bytes)
        let info = try HEIFTest.probe(odd)
        #expect((info.width, info.height) == (256, 192))
        #expect(info.details.contains("pitm names item #\(thumbnailID)"), "\(info.details)")
        #expect(info.details.contains("a thumbnail of #\(ownerID)"), "\(info.details)")
        #expect(!(try HEIFTest.probe(good)).details.contains("pitm names"))
    }
}
