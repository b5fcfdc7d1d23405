import PluginKit

/// The Exif (`eXIf`) and XMP (`iTXt` keyword "XML:com.adobe.xmp", uncompressed) chunks of a PNG, found by a walk
/// over the chunk headers (each chunk's data skipped by its length; no CRC is needed to hand a block over as found),
/// for `info`. Bounded by the data and by 10,000 chunks; stops at IEND or a length that runs past the end.
enum PNGMetadata {
    static func blocks(in data: UnsafeBufferPointer<UInt8>) -> MetadataBlocks {
        var exif: [UInt8]?, xmp: [UInt8]?
        var at = 8
        func u32(_ i: Int) -> Int { Int(data[i]) << 24 | Int(data[i + 1]) << 16 | Int(data[i + 2]) << 8 | Int(data[i + 3]) }
        var chunks = 0
        while at + 8 <= data.count, chunks < 10_000 {
            chunks += 1
            let length = u32(at), type = Array(data[at + 4..<at + 8])
            let start = at + 8
            guard length <= data.count - start else { break }
            if type == Array("IEND".utf8) { break }
            if type == Array("eXIf".utf8), exif == nil {
                exif = Array(data[start..<start + length])
            } else if type == Array("iTXt".utf8), xmp == nil {
                let keyword = Array("XML:com.adobe.xmp".utf8) + [0]
                // keyword\0, compression flag, method, language\0, translated keyword\0, text.
                if length > keyword.count + 2, Array(data[start..<start + keyword.count]) == keyword, data[start + keyword.count] == 0 {
                    var i = start + keyword.count + 2
                    let end = start + length
                    var nuls = 0
                    while i < end, nuls < 2 { if data[i] == 0 { nuls += 1 }; i += 1 }
                    if nuls == 2, i < end { xmp = Array(data[i..<end]) }
                }
            }
            at = start + length + 4
        }
        return MetadataBlocks(exif: exif, xmp: xmp)
    }
}
