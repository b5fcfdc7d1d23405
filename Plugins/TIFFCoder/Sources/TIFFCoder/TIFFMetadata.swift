import CTIFF
import Glibc
import PluginAPI
import PluginKit

/// A TIFF's metadata is its own IFD's tags: Exif's IFD0 is a TIFF IFD, so the descriptive tags (Make, Model,
/// Artist, Copyright ...) are stored as the page's own tags, and XMP as tag 700 (XMLPACKET). The Exif sub-IFD
/// (capture date, exposure) and the GPS IFD are neither read nor written here: libtiff would need a custom
/// directory for each, so `--keep-metadata all` keeps IFD0's text and the XMP packet, and `info` sees those.
enum TIFFMetadata {
    /// IFD0 text tags carried between an Exif block and a TIFF page.
    static let textTags: [UInt16] = [270, 271, 272, 305, 306, 315, 33432]  // description, make, model, software, date, artist, copyright

    /// What `info` hands the host: IFD0's text tags and Orientation as a small Exif block, and the XMP packet.
    static func blocks(_ file: TIFFFile) -> MetadataBlocks {
        var texts: [(UInt16, [UInt8])] = []
        for tag in textTags {
            var value: UnsafePointer<CChar>?
            if ip_tiff_text(file.tiff, UInt32(tag), &value) != 0, let value {
                let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self), count: min(strlen(value), 65_535)))
                if !bytes.isEmpty { texts.append((tag, bytes + [0])) }
            }
        }
        var xmp: [UInt8]?
        var size: UInt32 = 0
        var data: UnsafeRawPointer?
        if ip_tiff_xmp(file.tiff, &size, &data) != 0, let data, size > 0, Int(size) <= MetadataBlocks.limit {
            xmp = Array(UnsafeRawBufferPointer(start: data, count: Int(size)))
        }
        let exif = texts.isEmpty ? nil : exifBlock(texts: texts, orientation: UInt16(clamping: file.orientation))
        return MetadataBlocks(exif: exif, xmp: xmp)
    }

    /// Writes the text tags of `exif`'s IFD0 and the XMP packet on the page being written.
    static func write(_ metadata: MetadataBlocks, into tiff: OpaquePointer) throws {
        for (tag, text) in metadata.exif.map(ifd0Texts) ?? [] {
            guard ip_tiff_set_text(tiff, UInt32(tag), text) != 0 else { throw PluginFailure.internalError("libtiff refused tag \(tag)") }
        }
        if let xmp = metadata.xmp {
            let ok = xmp.withUnsafeBytes { ip_tiff_set_xmp(tiff, UInt32($0.count), $0.baseAddress) }
            guard ok != 0 else { throw PluginFailure.internalError("libtiff refused the XMP packet") }
        }
    }

    /// IFD0's ASCII entries among `textTags`, each up to its first NUL; every read bounds-checked (a hostile block
    /// yields fewer tags, never a read outside it).
    static func ifd0Texts(_ block: [UInt8]) -> [(UInt16, String)] {
        guard block.count >= 8, block[0] == block[1], block[0] == 0x49 || block[0] == 0x4D else { return [] }
        let little = block[0] == 0x49
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= block.count else { return nil }
            return little ? Int(block[at]) | Int(block[at + 1]) << 8 : Int(block[at]) << 8 | Int(block[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let low = u16(little ? at : at + 2), let high = u16(little ? at + 2 : at) else { return nil }
            return high << 16 | low
        }
        guard let first = u32(4), let count = u16(first) else { return [] }
        var found: [(UInt16, String)] = []
        for i in 0..<min(count, 1000) {
            let at = first + 2 + i * 12
            guard let tag = u16(at), let type = u16(at + 2), let n = u32(at + 4) else { break }
            guard type == 2, n > 0, n <= 65_536, textTags.contains(UInt16(tag)), !found.contains(where: { $0.0 == tag }) else { continue }
            guard let offset = n <= 4 ? at + 8 : u32(at + 8), offset + n <= block.count else { continue }
            let text = String(decoding: block[offset..<offset + n].prefix { $0 != 0 }, as: UTF8.self)
            if !text.isEmpty { found.append((UInt16(tag), text)) }
        }
        return found
    }

    /// A little-endian Exif block of one IFD: the text entries (NUL-terminated) and Orientation.
    static func exifBlock(texts: [(UInt16, [UInt8])], orientation: UInt16) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8 & 0xff)] }
        func u32(_ v: Int) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24 & 0xff)] }
        var entries = texts.map { (tag: Int($0.0), type: 2, value: $0.1) }
        if (1...8).contains(orientation) { entries.append((274, 3, u16(Int(orientation)) + [0, 0])) }
        entries.sort { $0.tag < $1.tag }
        var out: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + u32(8) + u16(entries.count)
        var data: [UInt8] = []
        let dataStart = 8 + 2 + entries.count * 12 + 4
        for entry in entries {
            let count = entry.type == 3 ? 1 : entry.value.count
            out += u16(entry.tag) + u16(entry.type) + u32(count)
            if entry.value.count <= 4 {
                out += entry.value + [UInt8](repeating: 0, count: 4 - entry.value.count)
            } else {
                out += u32(dataStart + data.count)
                data += entry.value
                if data.count % 2 == 1 { data.append(0) }
            }
        }
        return out + u32(0) + data
    }
}
