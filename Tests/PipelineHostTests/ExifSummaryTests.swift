import Foundation
import PipelineHost
import Testing
import TestSupport

/// The host's Exif reader: the facts of blocks written with known values in both byte orders, and blocks cut
/// short or filled with noise read without a crash (and without inventing facts).
@Suite struct ExifSummaryTests {
    private static func builder(littleEndian: Bool) -> ExifBlockBuilder {
        var b = ExifBlockBuilder()
        b.littleEndian = littleEndian
        b.make = "Imagepipe Optics"
        b.model = "Test Camera 2"
        b.captureDate = "2024:05:17 14:03:22"
        b.copyright = "(c) the imagepipe authors"
        b.orientation = 6
        b.gps = ((48, 51, 29.5), "N", (2, 17, 40.25), "W")
        b.thumbnail = true
        return b
    }

    @Test("every fact of a block written with known values, little- and big-endian", arguments: [true, false])
    func knownValues(littleEndian: Bool) throws {
        let summary = try #require(ExifSummary(block: Self.builder(littleEndian: littleEndian).block()))
        #expect(summary.make == "Imagepipe Optics" && summary.model == "Test Camera 2")
        #expect(summary.captureDate == "2024:05:17 14:03:22" && summary.copyright == "(c) the imagepipe authors")
        #expect(summary.orientation == 6 && summary.hasGPS && summary.hasThumbnail)
        #expect(abs((summary.latitude ?? 0) - (48 + 51.0 / 60 + 29.5 / 3600)) < 1e-9)
        #expect(abs((summary.longitude ?? 0) + (2 + 17.0 / 60 + 40.25 / 3600)) < 1e-9, "west is negative")
        #expect(summary.withoutCoordinates.latitude == nil && summary.withoutCoordinates.hasGPS)
        var bare = ExifBlockBuilder()
        bare.littleEndian = littleEndian
        let nothing = try #require(ExifSummary(block: bare.block()))
        #expect(nothing.make == nil && !nothing.hasGPS && !nothing.hasThumbnail && nothing.orientation == nil)
    }

    @Test("cut blocks, flipped bytes and noise are read without a crash; what is not TIFF is nil")
    func hostileBlocks() throws {
        let block = Self.builder(littleEndian: true).block()
        for length in 0..<block.count { _ = ExifSummary(block: Array(block.prefix(length))) }
        var random = SplitMix64(seed: 99)
        for _ in 0..<2000 {
            var damaged = block
            for _ in 0..<(1 + Int(random.next() % 8)) { damaged[Int(random.next() % UInt64(damaged.count))] = UInt8(truncatingIfNeeded: random.next()) }
            _ = ExifSummary(block: damaged)
        }
        // An IFD that points at itself ends (each IFD is read once, entries are bounded).
        var loop: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0, 1, 0, 0x69, 0x87, 4, 0, 1, 0, 0, 0, 8, 0, 0, 0, 8, 0, 0, 0]
        loop += [UInt8](repeating: 0, count: 8)
        #expect(ExifSummary(block: loop) != nil)
        #expect(ExifSummary(block: Array("not a tiff block at all".utf8)) == nil)
        #expect(MetadataSummary(exif: nil, xmp: Array("<x:xmpmeta xmlns:hdrgm=\"http://ns.adobe.com/hdr-gain-map/1.0/\" hdrgm:Version=\"1.0\"/>".utf8)).hasGainMap)
        #expect(!MetadataSummary(exif: nil, xmp: Array("<x:xmpmeta/>".utf8)).hasGainMap)
    }
}
