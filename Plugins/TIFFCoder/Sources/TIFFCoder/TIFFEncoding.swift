import CTIFF
import PluginAPI
import PluginKit

/// Writing TIFF with libtiff: one frame → one page, several → a multipage file (each directory a page, with its
/// page number), into a growable buffer that the host's sink receives once libtiff has closed the file.
///
/// - Samples: RGB, or RGBA when some pixel is not opaque; 16-bit for RGBA16 input or a bit depth of 9–16 (8-bit input
///   widened by × 257), else 8-bit; native byte order (libtiff marks it; every reader swaps as needed).
/// - Alpha as the frame holds it: straight → unassociated (ExtraSamples 2), premultiplied → associated (1).
/// - Compression: setting `compression` = `deflate` (default; the zlib level from speed: 10 → 1, default 6),
///   `lzw` or `none`; Deflate and LZW with horizontal differencing (Predictor 2), as libvips and ImageMagick write them.
///   Strips of libtiff's default size (about 8 KiB of samples).
/// - The ICC profile the frame carries is embedded (the host passes one with `--keep-profile` or a colour output).
/// - Classic TIFF only: a file that would pass 4 GiB fails with LIMIT_EXCEEDED (BigTIFF output is not written).
enum TIFFEncoding {
    static let settingKeys = ["compression"]
    static let classicLimit: UInt64 = (1 << 32) - 1

    static func encode(
        frames: UnsafePointer<UnsafePointer<ip_image>?>?, count: UInt32, options: UnsafePointer<ip_encode_options>?,
        call: OpaquePointer?, sink: UnsafePointer<ip_byte_sink>?
    ) throws {
        let (frames, sink) = try EncodeInput.check(frames: frames, count: count, sink: sink)
        let settings = try EncodeInput.options(options)
        let compression = try Self.compression(try EncodeInput.settings(settings))
        guard frames.count <= Int(UInt16.max) else { throw PluginFailure.limitExceeded("a TIFF holds at most 65535 pages here") }
        var output = ip_tiff_sink()
        output.limit = classicLimit
        defer { ip_tiff_sink_free(&output) }
        guard let tiff = ip_tiff_create(&output) else {
            throw PluginFailure(IP_STATUS_NO_MEMORY, "libtiff could not start a file" + reason(&output))
        }
        var closed = false
        defer { if !closed { TIFFClose(tiff) } }
        for (index, frame) in frames.enumerated() {
            try Host.checkCancellation(call)
            try writePage(frame, index: index, of: frames.count, into: tiff, compression: compression, settings: settings, output: &output)
        }
        TIFFClose(tiff)  // flushes the last directory and the header
        closed = true
        if output.over_limit != 0 { throw PluginFailure.limitExceeded("the TIFF would pass 4 GiB (classic TIFF's limit)") }
        if output.error.0 != 0 { throw PluginFailure.internalError("libtiff could not write the file" + reason(&output)) }
        let written = sink.pointee.write(sink.pointee.context, output.data, Int(output.size))
        guard written == ip_status(IP_STATUS_OK) else { throw PluginFailure(written, "the host's sink refused the output") }
    }

    struct Compression {
        let code: UInt16
        let name: String
    }

    static func compression(_ settings: LoaderConfiguration) throws -> Compression {
        switch settings.value(for: "compression")?.lowercased() ?? "deflate" {
        case "deflate", "zip": return Compression(code: UInt16(COMPRESSION_ADOBE_DEFLATE), name: "deflate")
        case "lzw": return Compression(code: UInt16(COMPRESSION_LZW), name: "lzw")
        case "none": return Compression(code: UInt16(COMPRESSION_NONE), name: "none")
        case let other: throw PluginFailure.unsupported("compression=\(other): the TIFF encoder writes deflate, lzw or none")
        }
    }

    private static func writePage(_ frame: ip_image, index: Int, of count: Int, into tiff: OpaquePointer, compression: Compression,
                                  settings: ip_encode_options, output: inout ip_tiff_sink) throws {
        let (pixels, sixteenIn) = try EncodeInput.rgbaLayout(frame, encoder: "TIFF")
        let width = Int(frame.width), height = Int(frame.height), stride = Int(frame.stride)
        let sixteen = sixteenIn || (9...16).contains(settings.bit_depth)
        let alpha = frame.alpha_mode != ip_alpha_mode(IP_ALPHA_NONE) && hasTransparency(pixels, width: width, height: height, stride: stride, sixteen: sixteenIn)
        let samples = alpha ? 4 : 3
        func set(_ ok: Int32, _ what: String) throws {
            guard ok != 0 else { throw PluginFailure.internalError("libtiff refused \(what)" + reason(&output)) }
        }
        try set(ip_tiff_set_u32(tiff, UInt32(TIFFTAG_IMAGEWIDTH), UInt32(width)), "the width")
        try set(ip_tiff_set_u32(tiff, UInt32(TIFFTAG_IMAGELENGTH), UInt32(height)), "the height")
        try set(ip_tiff_set_u16(tiff, UInt32(TIFFTAG_BITSPERSAMPLE), sixteen ? 16 : 8), "the bit depth")
        try set(ip_tiff_set_u16(tiff, UInt32(TIFFTAG_SAMPLESPERPIXEL), UInt16(samples)), "the samples per pixel")
        try set(ip_tiff_set_u16(tiff, UInt32(TIFFTAG_SAMPLEFORMAT), UInt16(SAMPLEFORMAT_UINT)), "the sample format")
        try set(ip_tiff_set_u16(tiff, UInt32(TIFFTAG_PHOTOMETRIC), UInt16(PHOTOMETRIC_RGB)), "RGB")
        try set(ip_tiff_set_u16(tiff, UInt32(TIFFTAG_PLANARCONFIG), UInt16(PLANARCONFIG_CONTIG)), "contiguous samples")
        try set(ip_tiff_set_u16(tiff, UInt32(TIFFTAG_ORIENTATION), UInt16(ORIENTATION_TOPLEFT)), "the orientation")
        try set(ip_tiff_set_u16(tiff, UInt32(TIFFTAG_COMPRESSION), compression.code), "\(compression.name) compression")
        if compression.code != UInt16(COMPRESSION_NONE) {
            try set(ip_tiff_set_u16(tiff, UInt32(TIFFTAG_PREDICTOR), UInt16(PREDICTOR_HORIZONTAL)), "the predictor")
        }
        if compression.code == UInt16(COMPRESSION_ADOBE_DEFLATE) {
            let level = settings.speed == 0 ? 6 : max(1, min(9, 10 - Int(settings.speed)))
            try set(ip_tiff_set_int(tiff, UInt32(TIFFTAG_ZIPQUALITY), Int32(level)), "the Deflate level")
        }
        if alpha {
            let type = frame.alpha_mode == ip_alpha_mode(IP_ALPHA_PREMULTIPLIED) ? EXTRASAMPLE_ASSOCALPHA : EXTRASAMPLE_UNASSALPHA
            try set(ip_tiff_set_extra_samples(tiff, UInt16(type)), "the alpha sample")
        }
        if let icc = ColorFacts(encoding: frame).icc {
            try icc.withUnsafeBytes { bytes in try set(ip_tiff_set_icc(tiff, UInt32(bytes.count), bytes.baseAddress), "the ICC profile") }
        }
        // The metadata the host asked to embed, on the first page (the file's).
        if index == 0, let metadata = EncodeInput.metadata(settings) { try TIFFMetadata.write(metadata, into: tiff) }
        if count > 1 {
            try set(ip_tiff_set_u32(tiff, UInt32(TIFFTAG_SUBFILETYPE), UInt32(FILETYPE_PAGE)), "the page type")
            try set(ip_tiff_set_page_number(tiff, UInt16(index), UInt16(count)), "the page number")
        }
        try set(ip_tiff_set_u32(tiff, UInt32(TIFFTAG_ROWSPERSTRIP), TIFFDefaultStripSize(tiff, 0)), "the strip size")
        var row = [UInt8](repeating: 0, count: width * samples * (sixteen ? 2 : 1))
        for y in 0..<height {
            pack(pixels + y * stride, width: width, sixteenIn: sixteenIn, sixteenOut: sixteen, alpha: alpha, into: &row)
            let written = row.withUnsafeMutableBytes { TIFFWriteScanline(tiff, $0.baseAddress, UInt32(y), 0) }
            guard written >= 0 else {
                if output.over_limit != 0 { throw PluginFailure.limitExceeded("the TIFF would pass 4 GiB (classic TIFF's limit)") }
                throw PluginFailure.internalError("libtiff could not write row \(y)" + reason(&output))
            }
        }
        guard TIFFWriteDirectory(tiff) != 0 else {
            if output.over_limit != 0 { throw PluginFailure.limitExceeded("the TIFF would pass 4 GiB (classic TIFF's limit)") }
            throw PluginFailure.internalError("libtiff could not write page \(index + 1)" + reason(&output))
        }
    }

    /// One row of RGBA8/RGBA16 as the file's RGB(A) samples, 8- or 16-bit (8 → 16 by × 257).
    private static func pack(_ source: UnsafeMutablePointer<UInt8>, width: Int, sixteenIn: Bool, sixteenOut: Bool, alpha: Bool,
                             into row: inout [UInt8]) {
        let samples = alpha ? 4 : 3
        row.withUnsafeMutableBytes { raw in
            if sixteenOut {
                let out = raw.bindMemory(to: UInt16.self)
                for x in 0..<width {
                    for c in 0..<samples {
                        out[x * samples + c] = sixteenIn
                            ? UnsafeRawPointer(source).loadUnaligned(fromByteOffset: (x * 4 + c) * 2, as: UInt16.self)
                            : UInt16(source[x * 4 + c]) * 257
                    }
                }
            } else {
                let out = raw.bindMemory(to: UInt8.self)
                for x in 0..<width {
                    for c in 0..<samples { out[x * samples + c] = source[x * 4 + c] }
                }
            }
        }
    }

    private static func hasTransparency(_ pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int, sixteen: Bool) -> Bool {
        for y in 0..<height {
            let row = UnsafeRawPointer(pixels + y * stride)
            for x in 0..<width {
                let opaque = sixteen ? row.loadUnaligned(fromByteOffset: x * 8 + 6, as: UInt16.self) == 0xFFFF
                    : row.load(fromByteOffset: x * 4 + 3, as: UInt8.self) == 0xFF
                if !opaque { return true }
            }
        }
        return false
    }

    /// ": <libtiff's first message>", or "".
    private static func reason(_ output: inout ip_tiff_sink) -> String {
        let text = withUnsafeBytes(of: &output.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return text.isEmpty ? "" : ": " + text
    }
}
