/// Writes small Exif blocks (TIFF structure: IFD0 with an Exif and a GPS sub-IFD, optionally IFD1) in either byte
/// order, and splices them into JPEG (APP1) and PNG (eXIf, with an iTXt XMP chunk) files: the project's own
/// fixtures for metadata tests, so no third-party photo is needed and every value is known.
public struct ExifBlockBuilder {
    public var littleEndian = true
    public var make: String?
    public var model: String?
    public var captureDate: String?
    public var copyright: String?
    public var artist: String?
    public var orientation: Int?
    /// Degrees, minutes, seconds and the reference letters.
    public var gps: (latitude: (Double, Double, Double), latRef: String, longitude: (Double, Double, Double), lonRef: String)?
    public var thumbnail = false

    public init() {}

    private enum Value { case ascii(String), short(Int), long(Int), rationals([(UInt32, UInt32)]) }

    public func block() -> [UInt8] {
        var out: [UInt8] = littleEndian ? [0x49, 0x49, 0x2A, 0x00] : [0x4D, 0x4D, 0x00, 0x2A]
        func u16(_ v: Int) -> [UInt8] { littleEndian ? [UInt8(v & 0xff), UInt8(v >> 8 & 0xff)] : [UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
        func u32(_ v: Int) -> [UInt8] { littleEndian ? [0, 8, 16, 24].map { UInt8(v >> $0 & 0xff) } : [24, 16, 8, 0].map { UInt8(v >> $0 & 0xff) } }
        out += u32(8)
        // Each IFD: entries, then its out-of-line values; sub-IFD pointers patched once their offsets are known.
        func ifd(_ entries: [(Int, Value)], at start: Int, next: Int = 0) -> (bytes: [UInt8], patches: [Int: Int]) {
            var head: [UInt8] = u16(entries.count), data: [UInt8] = []
            let dataStart = start + 2 + entries.count * 12 + 4
            var patches: [Int: Int] = [:]
            for (tag, value) in entries.sorted(by: { $0.0 < $1.0 }) {
                var payload: [UInt8], type: Int, count: Int
                switch value {
                case .ascii(let text): payload = Array(text.utf8) + [0]; type = 2; count = payload.count
                case .short(let v): payload = u16(v) + [0, 0]; type = 3; count = 1
                case .long(let v): payload = u32(v); type = 4; count = 1
                case .rationals(let parts): payload = parts.flatMap { u32(Int($0.0)) + u32(Int($0.1)) }; type = 5; count = parts.count
                }
                head += u16(tag) + u16(type) + u32(count)
                if payload.count <= 4 {
                    if case .long = value { patches[tag] = start + head.count }
                    head += payload + [UInt8](repeating: 0, count: 4 - payload.count)
                } else {
                    head += u32(dataStart + data.count)
                    data += payload
                    if data.count % 2 == 1 { data.append(0) }
                }
            }
            return (head + u32(next) + data, patches)
        }
        func dms(_ v: (Double, Double, Double)) -> Value { .rationals([(UInt32(v.0), 1), (UInt32(v.1), 1), (UInt32(v.2 * 100), 100)]) }
        var ifd0: [(Int, Value)] = []
        if let make { ifd0.append((0x010F, .ascii(make))) }
        if let model { ifd0.append((0x0110, .ascii(model))) }
        if let orientation { ifd0.append((0x0112, .short(orientation))) }
        if let artist { ifd0.append((0x013B, .ascii(artist))) }
        if let copyright { ifd0.append((0x8298, .ascii(copyright))) }
        ifd0.append((0x8769, .long(0)))
        if gps != nil { ifd0.append((0x8825, .long(0))) }
        var first = ifd(ifd0, at: 8)
        let exifStart = 8 + first.bytes.count
        let exif = ifd(captureDate.map { [(0x9003, Value.ascii($0))] } ?? [], at: exifStart)
        let gpsStart = exifStart + exif.bytes.count
        var gpsIFD: [UInt8] = []
        if let gps {
            gpsIFD = ifd([(0x0001, .ascii(gps.latRef)), (0x0002, dms(gps.latitude)), (0x0003, .ascii(gps.lonRef)), (0x0004, dms(gps.longitude))],
                         at: gpsStart).bytes
        }
        let ifd1Start = gpsStart + gpsIFD.count
        if thumbnail { first = ifd(ifd0, at: 8, next: ifd1Start) }
        out += first.bytes
        func patch(_ at: Int, _ value: Int) { let bytes = u32(value); for i in 0..<4 { out[at + i] = bytes[i] } }
        if let at = first.patches[0x8769] { patch(at, exifStart) }
        if let at = first.patches[0x8825] { patch(at, gpsStart) }
        out += exif.bytes + gpsIFD
        if thumbnail { out += ifd([(0x0201, .long(0)), (0x0202, .long(0))], at: ifd1Start).bytes }
        return out
    }

    /// `jpeg` with APP1 Exif (and APP1 XMP when given) right after its SOI.
    public static func jpeg(_ jpeg: [UInt8], exif: [UInt8]?, xmp: String? = nil) -> [UInt8] {
        var segments: [UInt8] = []
        func app1(_ payload: [UInt8]) { segments += [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xff)] + payload }
        if let exif { app1(Array("Exif\0\0".utf8) + exif) }
        if let xmp { app1(Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(xmp.utf8)) }
        return Array(jpeg[0..<2]) + segments + Array(jpeg[2...])
    }

    /// `png` with an eXIf chunk and an iTXt XMP chunk (when given) after its IHDR.
    public static func png(_ png: [UInt8], exif: [UInt8]?, xmp: String? = nil) -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            let n = data.count
            return [UInt8(n >> 24 & 0xff), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff)] + body + crc32(body)
        }
        var extra: [UInt8] = []
        if let exif { extra += chunk("eXIf", exif) }
        if let xmp { extra += chunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + Array(xmp.utf8)) }
        let afterIHDR = 8 + 8 + 13 + 4
        return Array(png[0..<afterIHDR]) + extra + Array(png[afterIHDR...])
    }

    static func crc32(_ bytes: [UInt8]) -> [UInt8] {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        return [UInt8(crc >> 24), UInt8(crc >> 16 & 0xff), UInt8(crc >> 8 & 0xff), UInt8(crc & 0xff)]
    }
}
