import PipelineHost
import Testing

/// One coder's half of the metadata policy, checked with that coder alone: blocks handed to its encoder
/// (`KeptMetadata`, as `--keep-metadata all` hands them) come back from its own probe, read by the host's reader.
public enum MetadataRoundTrip {
    /// A camera the tests know every value of, with an XMP packet that states an orientation in both forms.
    public static func camera(orientation: Int? = nil) -> ExifBlockBuilder {
        var exif = ExifBlockBuilder()
        exif.make = "Imagepipe Optics"
        exif.model = "Test Camera 2"
        exif.captureDate = "2024:05:17 14:03:22"
        exif.copyright = "(c) the imagepipe authors"
        exif.artist = "A. Photographer"
        exif.orientation = orientation
        exif.gps = ((48, 51, 29.5), "N", (2, 17, 40.25), "W")
        return exif
    }

    public static let xmp = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
        <rdf:Description xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="1"/></rdf:RDF></x:xmpmeta>
        """

    /// Encodes a 40×30 image as `format` with the camera's Exif and the XMP packet, and probes the result.
    public static func encodeAndProbe(plugin: String, format: String) throws -> (metadata: MetadataSummary?, bytes: [UInt8]) {
        let coders = try PluginSandbox.host(loading: [plugin]).coders
        var pixels: [UInt8] = []
        for y in 0..<30 { for x in 0..<40 { pixels += [UInt8(x * 6), UInt8(y * 8), 90, 255] } }
        let image = try Image(width: 40, height: 30, alphaMode: .none, bytes: pixels)
        let kept = KeptMetadata(exif: camera().block(), xmp: Array(xmp.utf8))
        let bytes = try coders.encode(image, format: format, options: EncodeOptions(), metadata: kept)
        let plain = try coders.probe(data: try coders.encode(image, format: format))
        guard plain.metadata == nil else { throw RoundTripFailure("an encode without metadata carried some: \(String(describing: plain.metadata))") }
        return (try coders.probe(data: bytes).metadata, bytes)
    }

    /// What every coder whose container keeps a whole Exif block meets: the camera, ownership, capture date and GPS
    /// come back as written, and the XMP packet byte for byte in size.
    public static func expectWholeBlocks(plugin: String, format: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (metadata, _) = try encodeAndProbe(plugin: plugin, format: format)
        let found = try #require(metadata, "no metadata read back", sourceLocation: sourceLocation)
        let exif = try #require(found.exif, "no Exif read back", sourceLocation: sourceLocation)
        #expect(exif.make == "Imagepipe Optics" && exif.model == "Test Camera 2", sourceLocation: sourceLocation)
        #expect(exif.copyright == "(c) the imagepipe authors" && exif.artist == "A. Photographer", sourceLocation: sourceLocation)
        #expect(exif.captureDate == "2024:05:17 14:03:22" && exif.hasGPS, sourceLocation: sourceLocation)
        #expect(found.xmpBytes == xmp.utf8.count, sourceLocation: sourceLocation)
    }

    public struct RoundTripFailure: Error, CustomStringConvertible {
        public let description: String
        init(_ text: String) { description = text }
    }
}
