import PipelineHost
import Testing

/// Routing: "ftyp" at offset 4 makes a candidate, and sniff reads the brand list for avif/avis.
@Suite struct AVIFSniffingTests {
    /// A ftyp box with `major` and `compatible` brands, followed by an empty meta box.
    static func ftyp(_ major: String, _ compatible: [String], size: Int? = nil) -> [UInt8] {
        let body = Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) }
        let length = size ?? body.count + 8
        return [UInt8(length >> 24 & 255), UInt8(length >> 16 & 255), UInt8(length >> 8 & 255), UInt8(length & 255)]
            + Array("ftyp".utf8) + body + [0, 0, 0, 8] + Array("meta".utf8)
    }

    static func chosen(_ bytes: [UInt8]) throws -> String? { try AVIFTest.coders().coder(forData: bytes)?.descriptor.id }

    @Test func brands() throws {
        let id = AVIFTest.coderID
        #expect(try Self.chosen(Self.ftyp("avif", ["mif1", "miaf"])) == id)
        #expect(try Self.chosen(Self.ftyp("avis", [])) == id)
        #expect(try Self.chosen(Self.ftyp("mif1", ["heic", "avif"])) == id, "compatible brand")
        #expect(try Self.chosen(Self.ftyp("msf1", ["iso8", "avis"])) == id, "compatible sequence brand")
        #expect(try Self.chosen(Self.ftyp("heic", ["mif1", "heic"])) == nil, "HEIF")
        #expect(try Self.chosen(Self.ftyp("mif1", ["heix", "avci"])) == nil)
        #expect(try Self.chosen(Self.ftyp("isom", ["iso2", "mp41"])) == nil, "MP4")
        #expect(try Self.chosen(Self.ftyp("avio", ["avia"])) == nil, "near misses")
    }

    /// The brand list is bounded by the box size: a brand after the box does not count, and malformed sizes
    /// (too small, not a whole number of brands, 64-bit) are not AVIF.
    @Test func boxSizeIsRespected() throws {
        let outside = Self.ftyp("mif1", ["heic"]) + Array("avif".utf8)
        #expect(try Self.chosen(outside) == nil)
        #expect(try Self.chosen(Self.ftyp("avif", [], size: 12)) == nil)
        #expect(try Self.chosen(Self.ftyp("avif", ["mif1"], size: 22)) == nil)
        #expect(try Self.chosen(Self.ftyp("avif", [], size: 1)) == nil)
    }

    /// Cut short: a prefix that ends before a deciding brand is not chosen (sniff answers NEED_MORE, which the
    /// host takes as no); one that already shows the major brand is.
    @Test func shortInput() throws {
        let full = Self.ftyp("mif1", ["miaf", "avif"])
        #expect(try Self.chosen(Array(full.prefix(12))) == nil)
        #expect(try Self.chosen(Array(full.prefix(23))) == nil)
        #expect(try Self.chosen(Array(full.prefix(24))) == AVIFTest.coderID)
        #expect(try Self.chosen(Array(Self.ftyp("avif", ["mif1"]).prefix(12))) == AVIFTest.coderID)
        for length in 0..<8 { #expect(try Self.chosen(Array(full.prefix(length))) == nil) }
    }

    @Test func descriptor() throws {
        let coders = try AVIFTest.coders().coders
        #expect(coders.count == 1)
        let d = try #require(coders.first).descriptor
        #expect(d.id == AVIFTest.coderID && d.format == "avif")
        #expect(d.mimeTypes == ["image/avif", "image/avif-sequence"] && d.extensions == ["avif", "avifs"])
        #expect(d.capabilities == [.decode, .encode, .animated, .incremental, .fastThumbnail, .threadSafe], "\(d.capabilities.names)")
        #expect(d.patterns.count == 1 && d.patterns[0].offset == 4 && d.patterns[0].confirmWithSniff && d.patterns[0].relevance == 100)
        #expect(try AVIFTest.coders().encoder(for: "avifs")?.descriptor.id == AVIFTest.coderID)
    }
}
