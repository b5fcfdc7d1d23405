/// What `info` tells about a file's Exif block: the facts a catalogue or a privacy check asks for, read by one
/// bounds-checked parser whatever the container (coders hand the block over as found, ABI 1.1 `exif`).
///
/// GPS coordinates are read but reported only when asked (`info --gps`): where a photo was taken is the kind of
/// fact a service should not publish by default; `hasGPS` alone says whether a file would leak it.
public struct ExifSummary: Sendable, Codable, Equatable {
    public var make: String?
    public var model: String?
    public var software: String?
    /// DateTimeOriginal as written ("2024:05:17 14:03:22"), with OffsetTimeOriginal appended when present.
    public var captureDate: String?
    public var artist: String?
    public var copyright: String?
    /// 1...8 as stored (the decoded pixels already have it applied); nil when absent.
    public var orientation: Int?
    public var hasGPS: Bool
    /// Decimal degrees (south and west negative), when the GPS block holds them; reported only when asked.
    public var latitude: Double?
    public var longitude: Double?
    /// IFD1 holds a JPEG thumbnail (JPEGInterchangeFormat).
    public var hasThumbnail: Bool

    public init(make: String? = nil, model: String? = nil, software: String? = nil, captureDate: String? = nil, artist: String? = nil,
                copyright: String? = nil, orientation: Int? = nil, hasGPS: Bool = false, latitude: Double? = nil, longitude: Double? = nil,
                hasThumbnail: Bool = false) {
        self.make = make; self.model = model; self.software = software; self.captureDate = captureDate; self.artist = artist
        self.copyright = copyright; self.orientation = orientation; self.hasGPS = hasGPS; self.latitude = latitude
        self.longitude = longitude; self.hasThumbnail = hasThumbnail
    }

    /// The summary of a TIFF-structured Exif block, nil when it is not one. Never reads outside `block`, follows
    /// each IFD once (a loop of offsets ends), reads at most 1000 entries an IFD.
    public init?(block: [UInt8]) {
        guard let reader = TIFFBlockReader(block) else { return nil }
        self.init()
        let ifd0 = reader.entries(at: reader.firstIFD)
        make = reader.text(ifd0[0x010F])
        model = reader.text(ifd0[0x0110])
        software = reader.text(ifd0[0x0131])
        artist = reader.text(ifd0[0x013B])
        copyright = reader.text(ifd0[0x8298])
        orientation = reader.integer(ifd0[0x0112]).flatMap { (1...8).contains($0) ? $0 : nil }
        if let offset = reader.integer(ifd0[0x8769]) {
            let exif = reader.entries(at: offset)
            captureDate = reader.text(exif[0x9003]).map { date in reader.text(exif[0x9011]).map { date + $0 } ?? date }
        }
        if captureDate == nil { captureDate = reader.text(ifd0[0x0132]) }
        if let offset = reader.integer(ifd0[0x8825]) {
            let gps = reader.entries(at: offset)
            hasGPS = !gps.isEmpty
            func degrees(_ tag: UInt16, _ refTag: UInt16, negative: String) -> Double? {
                guard let parts = reader.rationals(gps[tag]), parts.count == 3 else { return nil }
                let value = parts[0] + parts[1] / 60 + parts[2] / 3600
                guard value.isFinite else { return nil }
                return reader.text(gps[refTag])?.uppercased() == negative ? -value : value
            }
            latitude = degrees(0x0002, 0x0001, negative: "S")
            longitude = degrees(0x0004, 0x0003, negative: "W")
        }
        if let next = reader.nextIFD(after: reader.firstIFD) {
            hasThumbnail = reader.integer(reader.entries(at: next)[0x0201]) != nil
        }
    }

    /// The summary without what is reported only when asked.
    public var withoutCoordinates: ExifSummary {
        var copy = self
        copy.latitude = nil
        copy.longitude = nil
        return copy
    }
}

/// A read-only view of a TIFF-structured block (Exif): byte order, IFDs, typed values, every read checked.
struct TIFFBlockReader {
    struct Entry { let type: UInt16; let count: Int; let valueOffset: Int }

    let bytes: [UInt8]
    let little: Bool
    private(set) var firstIFD: Int

    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 8 else { return nil }
        if bytes[0] == 0x49 && bytes[1] == 0x49 { little = true } else if bytes[0] == 0x4D && bytes[1] == 0x4D { little = false } else { return nil }
        self.bytes = bytes
        firstIFD = 0
        guard u16(2) == 42, let first = u32(4).map(Int.init), first >= 8, first < bytes.count else { return nil }
        firstIFD = first
    }

    func u16(_ at: Int) -> UInt16? {
        guard at >= 0, at + 2 <= bytes.count else { return nil }
        return little ? UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 : UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])
    }

    func u32(_ at: Int) -> UInt32? {
        guard at >= 0, at + 4 <= bytes.count else { return nil }
        let b = (UInt32(bytes[at]), UInt32(bytes[at + 1]), UInt32(bytes[at + 2]), UInt32(bytes[at + 3]))
        return little ? b.0 | b.1 << 8 | b.2 << 16 | b.3 << 24 : b.0 << 24 | b.1 << 16 | b.2 << 8 | b.3
    }

    /// The entries of the IFD at `offset`, by tag (the first of a repeated tag wins).
    func entries(at offset: Int) -> [UInt16: Entry] {
        guard let count = u16(offset) else { return [:] }
        var found: [UInt16: Entry] = [:]
        for i in 0..<min(Int(count), 1000) {
            let at = offset + 2 + i * 12
            guard let tag = u16(at), let type = u16(at + 2), let n = u32(at + 4) else { break }
            let size = Self.size(of: type) * Int(n)
            // Values of four bytes or fewer sit in the entry itself, others at the offset it holds.
            let valueOffset = size <= 4 ? at + 8 : Int(u32(at + 8) ?? UInt32.max)
            if found[tag] == nil { found[tag] = Entry(type: type, count: Int(n), valueOffset: valueOffset) }
        }
        return found
    }

    /// The IFD after the one at `offset` (IFD1 after IFD0), when it points forward inside the block.
    func nextIFD(after offset: Int) -> Int? {
        guard let count = u16(offset), let next = u32(offset + 2 + Int(count) * 12).map(Int.init), next > offset, next < bytes.count else { return nil }
        return next
    }

    static func size(of type: UInt16) -> Int {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12: 8
        default: 0
        }
    }

    /// ASCII (type 2) or UNDEFINED text, trimmed of NULs and spaces; nil when empty or outside the block.
    func text(_ entry: Entry?) -> String? {
        guard let entry, entry.type == 2 || entry.type == 7, entry.count > 0, entry.count <= 4096,
              entry.valueOffset >= 0, entry.valueOffset + entry.count <= bytes.count else { return nil }
        let raw = bytes[entry.valueOffset..<entry.valueOffset + entry.count].prefix { $0 != 0 }
        let text = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: " ")
        return text.isEmpty ? nil : text
    }

    /// SHORT or LONG, the first value.
    func integer(_ entry: Entry?) -> Int? {
        guard let entry, entry.count >= 1 else { return nil }
        switch entry.type {
        case 3: return u16(entry.valueOffset).map(Int.init)
        case 4, 13: return u32(entry.valueOffset).map(Int.init)
        default: return nil
        }
    }

    /// RATIONAL values (GPS degrees, minutes, seconds).
    func rationals(_ entry: Entry?) -> [Double]? {
        guard let entry, entry.type == 5, entry.count >= 1, entry.count <= 16 else { return nil }
        var values: [Double] = []
        for i in 0..<entry.count {
            guard let n = u32(entry.valueOffset + i * 8), let d = u32(entry.valueOffset + i * 8 + 4) else { return nil }
            values.append(d == 0 ? .nan : Double(n) / Double(d))
        }
        return values
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        var slice = self[...]
        while slice.first == set { slice = slice.dropFirst() }
        while slice.last == set { slice = slice.dropLast() }
        return String(slice)
    }
}
