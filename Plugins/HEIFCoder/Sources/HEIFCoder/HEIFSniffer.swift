import PluginAPI

/// Decides from the `ftyp` box whether a file is HEIF for this coder.
///
/// libheif also reads AVIF, and both formats share the `ftyp` prefix, so the magic pattern only makes the file a
/// candidate and this sniffer looks at the brands: any AVIF brand leaves the file to the AVIF coder (which also
/// has the higher pattern relevance), an HEVC-family brand makes it ours, and the codec-neutral image brands
/// (`mif1`/`msf1`/`mif2`/`mif3`) make it ours when no AVIF brand is present, so that HEIF files with codecs
/// libheif 1.15 lacks (JPEG, VVC, uncompressed) get decode()'s "cannot decode <codec>" instead of "unknown format".
enum HEIFSniffer {
    enum Verdict: Equatable {
        case heif
        case notHEIF
        case needMore
    }

    /// What one brand says about the file.
    enum BrandKind {
        /// avif, avis: the AVIF coder's.
        case avif
        /// HEVC-coded HEIF: still images (heic, heix), sequences (hevc, hevx), multi-layer (heim, heis, hevm, hevs).
        case hevc
        /// Codec-neutral image and sequence brands.
        case generic
        case other
    }

    static let ftyp = ISOBoxes.fourCC("ftyp")
    static let mif3 = ISOBoxes.fourCC("mif3")
    private static let avifBrands = [ISOBoxes.fourCC("avif"), ISOBoxes.fourCC("avis")]
    private static let hevcBrands = [
        ISOBoxes.fourCC("heic"), ISOBoxes.fourCC("heix"), ISOBoxes.fourCC("hevc"), ISOBoxes.fourCC("hevx"),
        ISOBoxes.fourCC("heim"), ISOBoxes.fourCC("heis"), ISOBoxes.fourCC("hevm"), ISOBoxes.fourCC("hevs"),
    ]
    private static let genericBrands = [
        ISOBoxes.fourCC("mif1"), ISOBoxes.fourCC("msf1"), ISOBoxes.fourCC("mif2"), mif3,
    ]

    static func kind(of brand: ISOBoxes.FourCC) -> BrandKind {
        if avifBrands.contains(brand) { return .avif }
        if hevcBrands.contains(brand) { return .hevc }
        if genericBrands.contains(brand) { return .generic }
        return .other
    }

    /// Brands are read only from a box of at most this size: an `ftyp` larger than this is not a real image's.
    static let maxFileTypeBoxSize = 4096

    /// Reads the leading `ftyp` box (size, major brand, minor version, compatible brands) in place: sniff() must
    /// not allocate, so no list of brands is built.
    static func classify(_ data: UnsafeBufferPointer<UInt8>) -> Verdict {
        guard data.count >= 8 else { return .needMore }
        guard ISOBoxes.readUInt32(data, 4) == ftyp, let declared = ISOBoxes.readUInt32(data, 0) else { return .notHEIF }
        let size = Int(declared)
        // A size of 0 ("to the end of the file") or 1 (64-bit size) never occurs for a real ftyp.
        guard size >= 16, size <= maxFileTypeBoxSize else { return .notHEIF }
        guard data.count >= size else { return .needMore }
        var sawHEIF = false
        var offset = 8
        while offset + 4 <= size, let brand = ISOBoxes.readUInt32(data, offset) {
            // Offset 12 is minor_version, a number, except in low-overhead (mif3) files where it is the real brand.
            if offset != 12 || ISOBoxes.readUInt32(data, 8) == mif3 {
                switch kind(of: brand) {
                case .avif: return .notHEIF
                case .hevc, .generic: sawHEIF = true
                case .other: break
                }
            }
            offset += 4
        }
        return sawHEIF ? .heif : .notHEIF
    }

    /// sniff()'s answer as an ABI status.
    static func sniff(_ data: UnsafePointer<UInt8>?, _ size: Int) -> ip_status {
        guard let data, size > 0 else { return ip_status(IP_STATUS_NEED_MORE) }
        switch classify(UnsafeBufferPointer(start: data, count: size)) {
        case .heif: return ip_status(IP_STATUS_OK)
        case .notHEIF: return ip_status(IP_STATUS_UNSUPPORTED)
        case .needMore: return ip_status(IP_STATUS_NEED_MORE)
        }
    }
}
