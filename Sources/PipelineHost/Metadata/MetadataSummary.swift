/// The metadata facts of `info` and `/info`: an Exif summary, whether XMP is there, and what the XMP says about
/// gain maps (Ultra HDR / Adobe's `hdrgm` namespace: a JPEG or HEIF with an HDR gain map).
public struct MetadataSummary: Sendable, Codable, Equatable {
    public var exif: ExifSummary?
    /// Bytes of the Exif block, 0 without one.
    public var exifBytes: Int
    /// Bytes of the XMP packet, 0 without one.
    public var xmpBytes: Int
    /// The XMP names a gain map (`hdrgm:Version`, as Ultra HDR JPEGs and Adobe's gain-map files carry).
    public var hasGainMap: Bool

    public init(exif: [UInt8]?, xmp: [UInt8]?) {
        self.exif = exif.flatMap { ExifSummary(block: $0) }
        exifBytes = exif?.count ?? 0
        xmpBytes = xmp?.count ?? 0
        hasGainMap = xmp.map { Self.contains($0, Array("hdrgm:Version".utf8)) } ?? false
    }

    public var isEmpty: Bool { exifBytes == 0 && xmpBytes == 0 }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<start + needle.count].elementsEqual(needle) { return true }
        }
        return false
    }
}
