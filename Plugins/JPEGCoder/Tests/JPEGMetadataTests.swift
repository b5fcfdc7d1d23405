import Testing
import TestSupport

/// The metadata policy's "keep" half in this coder alone: the Exif and XMP the host hands the encoder are written as
/// APP1 segments and come back from this coder's own probe.
@Suite struct JPEGMetadataTests {
    @Test("Exif and XMP handed to the encoder come back from the probe; none without them")
    func roundTrip() throws { try MetadataRoundTrip.expectWholeBlocks(plugin: "libJPEGCoder.so", format: "jpg") }
}
