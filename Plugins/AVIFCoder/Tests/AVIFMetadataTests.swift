import Testing
import TestSupport

/// The metadata policy's "keep" half in this coder alone: the Exif and XMP the host hands the encoder are written as
/// Exif and mime items (libavif) and come back from this coder's own probe.
@Suite struct AVIFMetadataTests {
    @Test("Exif and XMP handed to the encoder come back from the probe; none without them")
    func roundTrip() throws { try MetadataRoundTrip.expectWholeBlocks(plugin: "libAVIFCoder.so", format: "avif") }
}
