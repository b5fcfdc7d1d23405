import CTIFF
import PluginAPI
import PluginKit

/// One TIFF opened over the request's bytes (or its source read by ranges, strip by strip), its pages (the directories that are not reduced-resolution copies),
/// and the facts of the current one. Errors carry libtiff's own first message.
final class TIFFFile {
    /// libtiff's process-wide handlers print to stderr: cleared once per process, before the first open.
    private static let silenced: Void = ip_tiff_silence_process_handlers()

    private let source: UnsafeMutablePointer<ip_tiff_source>
    let tiff: OpaquePointer
    /// Directory numbers of the pages, in file order.
    let pages: [Int]
    /// Directories in the main chain, pages and reduced-resolution copies together.
    let directoryCount: Int

    /// Over the request: its bytes, or its ranged source (valid for the call, as the file is).
    convenience init(_ view: DecodeRequestView) throws {
        try self.init(view.data, ranged: view.ranged, limits: view.options.limits)
    }

    init(_ data: UnsafeBufferPointer<UInt8>, ranged: ip_decode_source? = nil, limits: ip_limits) throws {
        _ = Self.silenced
        source = .allocate(capacity: 1)
        source.initialize(to: ip_tiff_source())
        if let ranged {
            source.pointee.read_at = ranged.read_at
            source.pointee.read_context = ranged.context
            source.pointee.size = ranged.size
        } else {
            source.pointee.data = data.baseAddress
            source.pointee.size = UInt64(data.count)
        }
        // No single allocation of libtiff's (a strip, a tile, a tag array) may exceed what the pixel limit allows
        // for a whole RGBA16 image, nor 1 GiB.
        let cap = limits.max_pixels > 0 ? min(UInt64(1) << 30, limits.max_pixels * 8) : UInt64(1) << 30
        guard let tiff = ip_tiff_open(source, tmsize_t(cap)) else {
            let why = Self.message(source)
            source.deallocate()
            throw PluginFailure.invalidData(why.isEmpty ? "not a TIFF file libtiff can open" : why)
        }
        self.tiff = tiff
        var pages: [Int] = []
        let count = Int(TIFFNumberOfDirectories(tiff))
        directoryCount = count
        let maxPages = limits.max_frames > 0 ? Int(limits.max_frames) : 10_000
        for directory in 0..<min(count, maxPages + 1) {
            guard TIFFSetDirectory(tiff, tdir_t(directory)) != 0 else { break }
            var kind: UInt32 = 0
            if ip_tiff_u32(tiff, UInt32(TIFFTAG_SUBFILETYPE), &kind) != 0, kind & UInt32(FILETYPE_REDUCEDIMAGE) != 0 { continue }
            pages.append(directory)
        }
        self.pages = pages
        if pages.isEmpty {
            let why = Self.message(source)
            throw PluginFailure.invalidData(why.isEmpty ? "the TIFF file holds no image" : why)
        }
        if pages.count > maxPages { throw PluginFailure.limitExceeded("the TIFF file has more than \(maxPages) pages (the frame limit)") }
    }

    deinit {
        TIFFClose(tiff)
        source.deallocate()
    }

    /// libtiff's first error for this file ("" when none).
    var error: String { Self.message(source) }

    private static func message(_ source: UnsafeMutablePointer<ip_tiff_source>) -> String {
        withUnsafeBytes(of: &source.pointee.error) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// Makes page `index` current; NOT_FOUND past the last.
    func select(page index: Int) throws {
        guard index < pages.count else {
            throw PluginFailure.notFound("page \(index + 1) does not exist: the TIFF file has \(pages.count) page\(pages.count == 1 ? "" : "s")")
        }
        guard TIFFSetDirectory(tiff, tdir_t(pages[index])) != 0 else {
            throw PluginFailure.invalidData(error.isEmpty ? "cannot read page \(index + 1)" : error)
        }
    }

    /// Makes a reduced-resolution copy current (`TIFFLevels`).
    func select(_ level: TIFFLevels.Level) throws {
        let selected = switch level.place {
        case .directory(let number): TIFFSetDirectory(tiff, tdir_t(number))
        case .subIFD(let offset): TIFFSetSubDirectory(tiff, offset)
        }
        guard selected != 0 else { throw PluginFailure.invalidData(error.isEmpty ? "cannot read a reduced-resolution copy" : error) }
    }

    /// The current directory's SubIFD offsets (none when it has no SubIFD tag), deduplicated, in file order.
    func subIFDOffsets() -> [UInt64] {
        var count: UInt16 = 0
        var offsets: UnsafeMutablePointer<UInt64>?
        guard ip_tiff_subifds(tiff, &count, &offsets) != 0, let offsets else { return [] }
        var seen = Set<UInt64>()
        return (0..<Int(count)).map { offsets[$0] }.filter { $0 > 0 && seen.insert($0).inserted }
    }

    // MARK: Facts of the current page

    func u16(_ tag: Int32, defaulted: Bool = true) -> UInt16? {
        var value: UInt16 = 0
        let found = defaulted ? ip_tiff_u16_defaulted(tiff, UInt32(tag), &value) : ip_tiff_u16(tiff, UInt32(tag), &value)
        return found != 0 ? value : nil
    }

    var storedSize: (width: Int, height: Int) {
        var width: UInt32 = 0, height: UInt32 = 0
        _ = ip_tiff_u32(tiff, UInt32(TIFFTAG_IMAGEWIDTH), &width)
        _ = ip_tiff_u32(tiff, UInt32(TIFFTAG_IMAGELENGTH), &height)
        return (Int(width), Int(height))
    }

    /// The Orientation tag, 1…8 (1 when absent or out of range).
    var orientation: Int {
        guard let value = u16(Int32(TIFFTAG_ORIENTATION), defaulted: false), (1...8).contains(value) else { return 1 }
        return Int(value)
    }

    /// Whether the extra samples include alpha (associated or not).
    var hasAlpha: Bool {
        var count: UInt16 = 0
        var types: UnsafePointer<UInt16>?
        guard ip_tiff_extra_samples(tiff, &count, &types) != 0, let types else { return false }
        return (0..<Int(count)).contains { types[$0] == UInt16(EXTRASAMPLE_ASSOCALPHA) || types[$0] == UInt16(EXTRASAMPLE_UNASSALPHA) }
    }

    /// Whether the alpha sample is associated (premultiplied), as opposed to unassociated.
    var alphaIsAssociated: Bool {
        var count: UInt16 = 0
        var types: UnsafePointer<UInt16>?
        guard ip_tiff_extra_samples(tiff, &count, &types) != 0, let types, count > 0 else { return false }
        return types[0] == UInt16(EXTRASAMPLE_ASSOCALPHA)
    }

    /// The page's ICC profile whatever its colour space (a CMYK page's too).
    var rawICCProfile: [UInt8]? {
        var size: UInt32 = 0
        var data: UnsafeRawPointer?
        guard ip_tiff_icc(tiff, &size, &data) != 0, let data, size > 0, size <= 16 << 20 else { return nil }
        return Array(UnsafeRawBufferPointer(start: data, count: Int(size)))
    }

    /// The ICC profile of the pixels the RGBA interface returns: none for CMYK, which it has made RGB naively.
    var iccProfile: [UInt8]? { photometric == Int(PHOTOMETRIC_SEPARATED) ? nil : rawICCProfile }

    var photometric: Int { Int(u16(Int32(TIFFTAG_PHOTOMETRIC), defaulted: false) ?? 0xFFFF) }

    /// One line for `info`.
    var details: String {
        let (width, height) = storedSize
        var parts: [String] = []
        parts.append(TIFFIsBigEndian(tiff) != 0 ? "big-endian" : "little-endian")
        if TIFFIsBigTIFF(tiff) != 0 { parts.append("BigTIFF") }
        parts.append(Self.compressionName(Int(u16(Int32(TIFFTAG_COMPRESSION)) ?? 1)))
        parts.append(Self.photometricName(photometric))
        let bits = Int(u16(Int32(TIFFTAG_BITSPERSAMPLE)) ?? 1), samples = Int(u16(Int32(TIFFTAG_SAMPLESPERPIXEL)) ?? 1)
        let format = Int(u16(Int32(TIFFTAG_SAMPLEFORMAT)) ?? 1)
        parts.append("\(samples)x\(bits)-bit\(format == 3 ? " float" : "")")
        parts.append(TIFFIsTiled(tiff) != 0 ? "tiled" : "strips")
        if u16(Int32(TIFFTAG_PLANARCONFIG)) == UInt16(PLANARCONFIG_SEPARATE) { parts.append("planar") }
        if orientation != 1 { parts.append("orientation \(orientation) (stored \(width)x\(height))") }
        if pages.count > 1 { parts.append("\(pages.count) pages") }
        return parts.joined(separator: ", ")
    }

    static func compressionName(_ code: Int) -> String {
        switch code {
        case 1: return "uncompressed"
        case 2: return "CCITT RLE"
        case 3: return "CCITT G3"
        case 4: return "CCITT G4"
        case 5: return "LZW"
        case 6: return "old-style JPEG"
        case 7: return "JPEG"
        case 8, 32946: return "Deflate"
        case 32773: return "PackBits"
        case 34925: return "LZMA"
        case 50000: return "Zstd"
        case 50001: return "WebP"
        default: return "compression \(code)"
        }
    }

    static func photometricName(_ code: Int) -> String {
        switch code {
        case 0: return "min-is-white"
        case 1: return "min-is-black"
        case 2: return "RGB"
        case 3: return "palette"
        case 4: return "mask"
        case 5: return "separated (CMYK)"
        case 6: return "YCbCr"
        case 8: return "CIE L*a*b*"
        default: return "photometric \(code)"
        }
    }
}
