import Testing
import TestSupport

/// The metadata policy's "keep" half in this coder alone: the Exif and XMP the host hands the encoder are written as
/// eXIf and iTXt chunks and come back from this coder's own probe.
@Suite struct PNGMetadataTests {
    @Test("Exif and XMP handed to the encoder come back from the probe; none without them")
    func roundTrip() throws { try MetadataRoundTrip.expectWholeBlocks(plugin: "libPNGCoder.so", format: "png") }
}
