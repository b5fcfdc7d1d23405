import Testing
import TestSupport

/// The metadata policy's "keep" half in this coder alone: the Exif and XMP the host hands the encoder are written as
/// EXIF and XMP chunks (libwebpmux) and come back from this coder's own probe.
@Suite struct WebPMetadataTests {
    @Test("Exif and XMP handed to the encoder come back from the probe; none without them")
    func roundTrip() throws { try MetadataRoundTrip.expectWholeBlocks(plugin: "libWebPCoder.so", format: "webp") }
}
