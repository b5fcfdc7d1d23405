import Foundation
import PipelineHost
import TestSupport
import Testing

/// Sniffing: which `ftyp` brands make a file this coder's, and that AVIF is always left to the AVIF coder.
@Suite struct HEIFSniffTests {
    /// An `ftyp` box with these brands, followed by an empty `meta` box.
    static func fileType(major: String, minor: String = "\0\0\0\0", compatible: [String]) -> [UInt8] {
        let payload = Array(major.utf8) + Array(minor.utf8) + compatible.flatMap { Array($0.utf8) }
        let size = UInt32(8 + payload.count)
        let header = [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
        return header + Array("ftyp".utf8) + payload + [0, 0, 0, 12] + Array("meta".utf8) + [0, 0, 0, 0]
    }

    static func chosen(_ bytes: [UInt8]) throws -> String? {
        try HEIFTest.host().coders.coder(forData: bytes)?.descriptor.id
    }

    @Test func descriptorStatesTheRoutingData() throws {
        let coder = try #require(try HEIFTest.host().coders.coders.first { $0.descriptor.id == HEIFTest.coderID })
        let descriptor = coder.descriptor
        #expect(descriptor.format == "heif")
        #expect(descriptor.mimeTypes == ["image/heic", "image/heif"])
        #expect(descriptor.extensions == ["heic", "heif", "hif"])
        #expect(descriptor.capabilities.isSuperset(of: [.decode, .multipage, .fastThumbnail, .threadSafe]))
        #expect(!descriptor.capabilities.contains(.scales), "the host resamples: shrink-on-load only picks a thumbnail")
        let pattern = try #require(descriptor.patterns.first)
        #expect(pattern.offset == 4 && pattern.bytes == Array("ftyp".utf8) && pattern.relevance == 90 && pattern.confirmWithSniff)
        // Debian's libheif1 1.15 links x265, so encoding is claimed here; the claim follows the library.
        if CommandLine.hasTool("heif-enc") {
            let encoder = try CommandLine.shell("heif-enc --list-encoders 2>/dev/null | grep -q 'HEVC encoder'")
            #expect(descriptor.capabilities.contains(.encode) == (encoder.status == 0))
        }
    }

    @Test(arguments: [
        (["heic"], "heic", true), (["mif1", "heic"], "mif1", true), (["mif1", "heix"], "heix", true),
        (["msf1", "hevc"], "hevc", true), (["mif1"], "mif1", true), (["mif1", "heif"], "mif1", true),
        (["mif1", "avif", "miaf"], "avif", false), (["mif1", "heic", "avif"], "heic", false),
        (["avis", "msf1"], "avis", false), (["isom", "mp41"], "isom", false), (["crx "], "crx ", false),
        (["qt  "], "qt  ", false),
    ] as [([String], String, Bool)])
    func brands(_ compatible: [String], _ major: String, _ ours: Bool) throws {
        let bytes = Self.fileType(major: major, compatible: compatible)
        #expect(try Self.chosen(bytes) == (ours ? HEIFTest.coderID : nil), "major \(major), compatible \(compatible)")
    }

    /// Low-overhead (mif3) files carry their real brand in minor_version.
    @Test func lowOverheadBrandIsRead() throws {
        #expect(try Self.chosen(Self.fileType(major: "mif3", minor: "heic", compatible: [])) == HEIFTest.coderID)
        #expect(try Self.chosen(Self.fileType(major: "mif3", minor: "avif", compatible: [])) == nil)
    }

    @Test func shortOrMalformedHeadersAreNotClaimed() throws {
        let full = Self.fileType(major: "heic", compatible: ["mif1", "heic"])
        for length in [0, 4, 8, 12, 20] {
            #expect(try Self.chosen(Array(full.prefix(length))) == nil, "\(length) bytes")
        }
        // An absurd ftyp size (larger than any real one) or one too small to hold a brand.
        var huge = full
        huge[1] = 0x10
        #expect(try Self.chosen(huge) == nil)
        var tiny = full
        tiny[3] = 12
        #expect(try Self.chosen(tiny) == nil)
    }

    /// Every AVIF in the corpus (stills, sequences, grids, odd sizes) is left to the AVIF coder.
    @Test(.requiresCorpus) func corpusAVIFFilesAreNotClaimed() throws {
        guard let corpus = try HEIFTest.corpus("corpusAVIFFilesAreNotClaimed") else { return }
        let rows = try CorpusManifest.testRows(in: corpus).filter { $0.format == "avif" }
        #expect(rows.count >= 30)
        var claimed: [String] = []
        for row in rows {
            let bytes = try TestFiles.read(corpus + "/" + row.path)
            if try Self.chosen(Array(bytes.prefix(4096))) != nil { claimed.append(row.path) }
        }
        #expect(claimed.isEmpty, "claimed AVIF files: \(claimed)")
        print("sniff: 0 of \(rows.count) corpus AVIF files claimed")
    }

    /// Every HEIF-branded corpus file is claimed, except those with an AVIF brand (libheif-avif32.heif).
    @Test(.requiresCorpus) func corpusHEIFFilesAreClaimed() throws {
        guard let corpus = try HEIFTest.corpus("corpusHEIFFilesAreClaimed") else { return }
        for row in try CorpusManifest.testRows(in: corpus) where row.path.hasPrefix("heif/") {
            let bytes = try TestFiles.read(corpus + "/" + row.path)
            let expected = row.path.hasSuffix("avif32.heif") ? nil : HEIFTest.coderID
            #expect(try Self.chosen(bytes) == expected, "\(row.path)")
        }
    }
}
