import PipelineHost
import Testing
import TestSupport

/// The metadata policy's "keep" half in TIFFCoder alone: Exif's IFD0 text tags become the page's own tags (a TIFF's
/// IFD is Exif's IFD0) and XMP is tag 700; the Exif and GPS sub-IFDs are not written, and the probe reads back what is.
@Suite struct TIFFMetadataTests {
    @Test("IFD0 text and XMP handed to the encoder come back from the probe; none without them")
    func roundTrip() throws {
        let (metadata, _) = try MetadataRoundTrip.encodeAndProbe(plugin: "libTIFFCoder.so", format: "tiff")
        let found = try #require(metadata, "no metadata read back")
        let exif = try #require(found.exif, "no Exif read back")
        #expect(exif.make == "Imagepipe Optics" && exif.model == "Test Camera 2")
        #expect(exif.copyright == "(c) the imagepipe authors" && exif.artist == "A. Photographer")
        #expect(exif.orientation == 1 && !exif.hasGPS && exif.captureDate == nil, "IFD0 only: no Exif or GPS sub-IFD")
        #expect(found.xmpBytes == MetadataRoundTrip.xmp.utf8.count)
    }
}
