import PipelineHost
import Testing
import TestSupport

/// The metadata policy's "keep" half in this coder alone: the Exif and XMP the host hands the encoder are written as
/// Exif and mime items (libheif) and come back from this coder's own probe.
@Suite struct HEIFMetadataTests {
    @Test("Exif and XMP handed to the encoder come back from the probe; none without them")
    func roundTrip() throws {
        let (metadata, _) = try MetadataRoundTrip.encodeAndProbe(plugin: "libHEIFCoder.so", format: "heic")
        let found = try #require(metadata, "no metadata read back")
        let exif = try #require(found.exif, "no Exif read back")
        #expect(exif.make == "Imagepipe Optics" && exif.model == "Test Camera 2")
        #expect(exif.copyright == "(c) the imagepipe authors" && exif.artist == "A. Photographer")
        #expect(exif.captureDate == "2024:05:17 14:03:22" && exif.hasGPS)
        #expect(found.xmpBytes == MetadataRoundTrip.xmp.utf8.count)
    }
}
