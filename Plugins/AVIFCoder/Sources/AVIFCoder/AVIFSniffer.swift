import PluginAPI

/// Tells AVIF from the other ISO-BMFF formats (HEIF/HEIC, MP4, ...) by the brands of the leading `ftyp` box.
///
/// A file is AVIF when `avif` (still image) or `avis` (image sequence) is its major brand or one of its compatible
/// brands, as libavif's own avifPeekCompatibleFileType decides. Reads at most the ftyp box, allocates nothing.
enum AVIFSniffer {
    /// ftyp boxes are a few dozen bytes; 256 covers 60 compatible brands.
    static let wantedBytes = 256

    /// Box sizes beyond this are not a plausible ftyp (a brand list of 16 K entries): not AVIF.
    static let largestFileTypeBox = 65536

    static func sniff(_ data: UnsafePointer<UInt8>?, _ size: Int) -> ip_status {
        guard let data else { return ip_status(size == 0 ? IP_STATUS_NEED_MORE : IP_STATUS_UNSUPPORTED) }
        return classify(UnsafeBufferPointer(start: data, count: size))
    }

    /// OK when the ftyp brands name avif/avis, UNSUPPORTED when they do not (or there is no valid ftyp box),
    /// NEED_MORE when the bytes end before the answer.
    static func classify(_ bytes: UnsafeBufferPointer<UInt8>) -> ip_status {
        let ok = ip_status(IP_STATUS_OK), no = ip_status(IP_STATUS_UNSUPPORTED), more = ip_status(IP_STATUS_NEED_MORE)
        guard bytes.count >= 8 else {
            // Decide early on a prefix that already cannot be "....ftyp".
            let ftyp: [UInt8] = [0x66, 0x74, 0x79, 0x70]
            for index in 4..<max(4, bytes.count) where bytes[index] != ftyp[index - 4] { return no }
            return more
        }
        guard bytes[4] == 0x66, bytes[5] == 0x74, bytes[6] == 0x79, bytes[7] == 0x70 else { return no }
        let boxSize = Int(readUInt32(bytes, at: 0))
        // size 0 (to end of file) and 1 (64-bit size) are legal for boxes in general but never used for ftyp;
        // a ftyp needs at least major brand + minor version, and a brand list of whole 4-byte brands.
        guard boxSize >= 16, boxSize <= largestFileTypeBox, boxSize % 4 == 0 else { return no }
        guard bytes.count >= 12 else { return more }
        if isAVIFBrand(bytes, at: 8) { return ok }
        var offset = 16  // compatible brands follow major brand (8..<12) and minor version (12..<16)
        while offset + 4 <= boxSize {
            guard offset + 4 <= bytes.count else { return more }
            if isAVIFBrand(bytes, at: offset) { return ok }
            offset += 4
        }
        return no
    }

    /// "avif" or "avis".
    private static func isAVIFBrand(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        bytes[offset] == 0x61 && bytes[offset + 1] == 0x76 && bytes[offset + 2] == 0x69
            && (bytes[offset + 3] == 0x66 || bytes[offset + 3] == 0x73)
    }

    static func readUInt32(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }
}
