import Testing
import TestSupport

/// The metadata policy's "keep" half in this coder alone: the Exif and XMP the host hands the encoder are written as
/// Exif and mime items (libheif) and come back from this coder's own probe.
@Suite struct HEIFMetadataTests {
    @Test("Exif and XMP handed to the encoder come back from the probe; none without them")
    func roundTrip() throws { try MetadataRoundTrip.expectWholeBlocks(plugin: "libHEIFCoder.so", format: "heic") }
}
