import PipelineHost
import Testing
import TestSupport

/// What `--keep-metadata` keeps of a source's blocks, read back with the host's own Exif reader.
@Suite struct MetadataPolicyTests {
    let xmp = Array("""
        <x:xmpmeta><rdf:Description tiff:Orientation="6" tiff:Make="X"/><tiff:Orientation>8</tiff:Orientation></x:xmpmeta>
        """.utf8)

    @Test("none keeps nothing: the default")
    func none() {
        #expect(MetadataPolicy.none.kept(exif: MetadataRoundTrip.camera(orientation: 6).block(), xmp: xmp) == nil)
        #expect(EncodeOptions().keepMetadata == .none)
    }

    @Test("all keeps every tag and the XMP, with the Orientation said as 1 in both", arguments: [true, false])
    func all(littleEndian: Bool) throws {
        var camera = MetadataRoundTrip.camera(orientation: 6)
        camera.littleEndian = littleEndian
        camera.thumbnail = true
        let source = camera.block()
        let kept = try #require(MetadataPolicy.all.kept(exif: source, xmp: xmp))
        let keptExif = try #require(kept.exif)
        let exif = try #require(ExifSummary(block: keptExif))
        var expected = try #require(ExifSummary(block: source))
        #expect(expected.orientation == 6)
        expected.orientation = 1
        #expect(exif == expected, "every other fact as the source's")
        #expect(kept.exif?.count == source.count, "patched in place")
        let keptXMP = try #require(kept.xmp)
        let text = String(decoding: keptXMP, as: UTF8.self)
        #expect(text.contains("tiff:Orientation=\"1\"") && text.contains("<tiff:Orientation>1</tiff:Orientation>"))
        #expect(!text.contains("\"6\"") && text.contains("tiff:Make=\"X\""))
    }

    @Test("copyright keeps Artist and Copyright only: no camera, date, GPS, thumbnail or XMP")
    func copyright() throws {
        var camera = MetadataRoundTrip.camera(orientation: 3)
        camera.thumbnail = true
        let kept = try #require(MetadataPolicy.copyright.kept(exif: camera.block(), xmp: xmp))
        #expect(kept.xmp == nil)
        let keptExif = try #require(kept.exif)
        let exif = try #require(ExifSummary(block: keptExif))
        #expect(exif == ExifSummary(artist: "A. Photographer", copyright: "(c) the imagepipe authors"))
        var anonymous = MetadataRoundTrip.camera()
        anonymous.copyright = nil
        anonymous.artist = nil
        #expect(MetadataPolicy.copyright.kept(exif: anonymous.block(), xmp: xmp) == nil, "nothing to keep")
    }

    @Test("a cut or corrupted block keeps less, never more, and never reads outside itself")
    func hostileBlocks() {
        let block = MetadataRoundTrip.camera(orientation: 6).block()
        var random = SplitMix64(seed: 7)
        for length in 0...block.count {
            let cut = Array(block.prefix(length))
            for policy in MetadataPolicy.allCases { _ = policy.kept(exif: cut, xmp: Array(xmp.prefix(length))) }
        }
        for _ in 0..<2000 {
            var bent = block
            for _ in 0..<4 { bent[Int(random.next() % UInt64(bent.count))] = UInt8(truncatingIfNeeded: random.next()) }
            for policy in MetadataPolicy.allCases {
                if let kept = policy.kept(exif: bent, xmp: xmp), policy == .copyright, let exif = kept.exif {
                    let summary = ExifSummary(block: exif)
                    #expect(summary?.make == nil && summary?.hasGPS != true)
                }
            }
        }
    }
}
