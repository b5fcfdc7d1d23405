/// What an output keeps of its source's Exif and XMP (`--keep-metadata`, `kmd:`).
///
/// Outputs carry none by default, as imgproxy's and thumbor's do: metadata is bytes a thumbnail does not need, and
/// a photo's Exif tells where it was taken (GPS), with what, and when — facts a service should not republish
/// unasked. `copyright` keeps who owns the picture and nothing else (imgproxy's `keep_copyright`: Exif Artist and
/// Copyright); `all` keeps both blocks whole, with the Orientation they state reset to 1 since the pixels already
/// have it applied (a viewer would otherwise rotate the output a second time).
public enum MetadataPolicy: String, Sendable, Hashable, Codable, CaseIterable {
    case none
    case copyright
    case all

    /// The blocks an output embeds under this policy, from its source's; nil when nothing is kept.
    public func kept(exif: [UInt8]?, xmp: [UInt8]?) -> KeptMetadata? {
        let kept: KeptMetadata
        switch self {
        case .none: return nil
        case .copyright:
            kept = KeptMetadata(exif: exif.flatMap(ExifRewriting.ownershipOnly), xmp: nil)
        case .all:
            kept = KeptMetadata(exif: exif.map(ExifRewriting.uprighted), xmp: xmp.map(XMPRewriting.uprighted))
        }
        return kept.exif == nil && kept.xmp == nil ? nil : kept
    }
}

/// The Exif and XMP blocks an encoder is handed (ABI 1.1 `ip_encode_options.exif`, `.xmp`), already filtered by a
/// `MetadataPolicy`: the encoder writes them where its format keeps them and decides nothing.
public struct KeptMetadata: Sendable, Hashable {
    /// TIFF-structured, from the byte-order mark.
    public var exif: [UInt8]?
    public var xmp: [UInt8]?

    public init(exif: [UInt8]?, xmp: [UInt8]?) {
        self.exif = exif.flatMap { $0.isEmpty ? nil : $0 }
        self.xmp = xmp.flatMap { $0.isEmpty ? nil : $0 }
    }
}
