import BoxShrink
import CTIFF
import PluginAPI
import PluginKit

/// probe and decode: what the coder's C slots call inside `withStatus`.
///
/// Pixels come from libtiff's RGBA interface (`TIFFRGBAImage`), which reads every photometric interpretation,
/// compression, bit depth (1–16), planar layout and tiling libtiff supports into RGBA8, strip by strip or tile by
/// tile into the one output buffer; CMYK without a CMYK profile is converted naively (with one, `TIFFCMYK` converts
/// it through Little CMS), YCbCr through libtiff's conversion (and
/// libjpeg's for JPEG-compressed YCbCr); alpha comes out associated (premultiplied). 16-bit samples are reduced to 8
/// bits by the RGBA interface unless the request asks for high bit depth; those, and floating-point pages, which it
/// refuses, are read block by block by `TIFFBlockPixels` into RGBA16.
/// The Orientation tag is applied here, from the stored rows (libtiff's own flips are cancelled).
/// A thumbnail request decodes the smallest reduced-resolution copy that covers it (`TIFFLevels`); without one small
/// enough, the RGBA interface's strips or tiles are averaged in blocks while they are read (`readReduced`).
enum TIFFDecoding {
    static func probe(_ request: UnsafePointer<ip_decode_request>?, into info: UnsafeMutablePointer<ip_image_info>?) throws {
        guard let info else { throw PluginFailure.internalError("NULL info") }
        let view = try DecodeRequestView(request)
        let file = try TIFFFile(view)
        try file.select(page: Int(view.options.page_index))
        let (width, height) = displaySize(file, ignoreOrientation: view.has(UInt32(IP_DECODE_IGNORE_ORIENTATION)))
        var result = ip_image_info()
        result.width = UInt32(width)
        result.height = UInt32(height)
        result.frame_count = 1
        result.page_count = UInt32(file.pages.count)
        result.loop_count = -1
        result.bit_depth = UInt32(file.u16(Int32(TIFFTAG_BITSPERSAMPLE)) ?? 1)
        result.has_alpha = file.hasAlpha ? 1 : 0
        colorFacts(file).write(into: &result, call: view.call)
        TIFFMetadata.blocks(file).write(into: &result, call: view.call)
        var details = file.details
        if file.photometric == Int(PHOTOMETRIC_SEPARATED) {
            details += TIFFCMYK(file) != nil ? "; CMYK through its ICC profile" : "; CMYK converted naively (no CMYK profile)"
        }
        let levels = try TIFFLevels.levels(of: file, page: Int(view.options.page_index))
        if !levels.isEmpty {
            details += "; reduced copies " + levels.map { "\($0.width)x\($0.height)" }.joined(separator: ",")
        }
        if let box = view.thumbnailSize {
            let ignore = view.has(UInt32(IP_DECODE_IGNORE_ORIENTATION))
            let level = TIFFLevels.choose(levels, page: file.storedSize, transposed: !ignore && file.orientation > 4, request: view)
            details += "; at \(box.width)x\(box.height): " + (level.map { "reduced copy \($0.width)x\($0.height)" } ?? "full page")
        }
        setInfoStrings(&result, format: "tiff", details: details)
        ABIStruct.write(result, to: info)
    }

    static func decode(_ request: UnsafePointer<ip_decode_request>?, into image: UnsafeMutablePointer<ip_image>?) throws {
        guard let image else { throw PluginFailure.internalError("NULL image") }
        let view = try DecodeRequestView(request)
        if view.options.frame_index > 0 { throw PluginFailure.notFound("frame \(view.options.frame_index) does not exist: TIFF pages are pages, not frames") }
        let file = try TIFFFile(view)
        let page = Int(view.options.page_index)
        try file.select(page: page)
        let ignore = view.has(UInt32(IP_DECODE_IGNORE_ORIENTATION))
        // The page's orientation and colour hold for its reduced copies too (they show the same picture, and writers
        // often leave those tags out of them).
        let orientation = ignore ? 1 : file.orientation
        let color = colorFacts(file)
        if view.thumbnailSize != nil,
           let level = TIFFLevels.choose(try TIFFLevels.levels(of: file, page: page), page: file.storedSize,
                                         transposed: orientation > 4, request: view) {
            try file.select(level)
        }
        let stored = file.storedSize
        let (width, height) = orientation > 4 ? (stored.height, stored.width) : stored
        try view.checkLimits(width: width, height: height)
        /// The output of a reader that returns packed stored rows (`Pixel`-sized pixels of `Sample`s), placed in
        /// display layout.
        func emit<Sample, Pixel>(_ rows: [Sample], as _: Pixel.Type, format: ip_pixel_format, alpha: ip_alpha_mode, color: ColorFacts) throws {
            var output = try Host.allocatePixels(view.call, width: width, height: height, format: format)
            guard let pixels = output.pixels else { throw PluginFailure.internalError("the host returned no pixels") }
            rows.withUnsafeBytes { raw in
                place(raw.bindMemory(to: Pixel.self).baseAddress!, stored: stored, orientation: orientation, into: pixels, stride: Int(output.stride))
            }
            output.alpha_mode = alpha
            output.index = UInt32(view.options.page_index)
            color.write(into: &output, call: view.call)
            ABIStruct.write(output, to: image)
        }
        if let sample = TIFFBlockPixels.sample(of: file, highBitDepth: view.has(UInt32(IP_DECODE_HIGH_BIT_DEPTH))) {
            let samples = try TIFFBlockPixels.read(file, as: sample, call: view.call)
            let alpha = !file.hasAlpha ? IP_ALPHA_NONE : file.alphaIsAssociated ? IP_ALPHA_PREMULTIPLIED : IP_ALPHA_STRAIGHT
            return try emit(samples, as: UInt64.self, format: IP_PIXEL_RGBA16, alpha: ip_alpha_mode(alpha), color: color)
        }
        if let cmyk = TIFFCMYK(file) {
            // sRGB once converted: no colour facts.
            return try emit(try cmyk.read(file, call: view.call), as: UInt32.self, format: IP_PIXEL_RGBA8, alpha: ip_alpha_mode(cmyk.hasAlpha ? IP_ALPHA_STRAIGHT : IP_ALPHA_NONE), color: ColorFacts())
        }
        var message = [CChar](repeating: 0, count: 1024)
        guard TIFFRGBAImageOK(file.tiff, &message) != 0 else {
            throw PluginFailure.unsupported(String(cString: message))
        }
        var reader = TIFFRGBAImage()
        guard TIFFRGBAImageBegin(&reader, file.tiff, 1, &message) != 0 else {
            throw PluginFailure.invalidData(String(cString: message))
        }
        defer { TIFFRGBAImageEnd(&reader) }
        // libtiff applies the flip part of the current directory's orientation (it reads 5–8 as 1–4); asking for that
        // directory's own flip family cancels it, so libtiff gives the stored rows and every transform of the page's
        // orientation is done below (one rule for pages and their reduced copies, whose tags may differ).
        let directoryOrientation = file.orientation
        reader.req_orientation = UInt16(directoryOrientation > 4 ? directoryOrientation - 4 : directoryOrientation)
        let factor = StandIn(full: width, height, request: view)?.blockFactor() ?? 1
        let bandRows = Self.bandRows(file)
        if factor > 1, bandRows < stored.height {
            var output = try readReduced(&reader, file: file, stored: stored, factor: factor, bandRows: bandRows,
                                         orientation: orientation, call: view.call)
            output.alpha_mode = ip_alpha_mode(file.hasAlpha ? IP_ALPHA_PREMULTIPLIED : IP_ALPHA_NONE)
            output.index = UInt32(view.options.page_index)
            color.write(into: &output, call: view.call)
            return ABIStruct.write(output, to: image)
        }
        var output = try Host.allocatePixels(view.call, width: width, height: height, format: IP_PIXEL_RGBA8)
        guard let pixels = output.pixels else { throw PluginFailure.internalError("the host returned no pixels") }
        try Host.checkCancellation(view.call)
        if orientation == 1, Int(output.stride) == width * 4 {
            try read(&reader, into: UnsafeMutableRawPointer(pixels), width: stored.width, height: stored.height, file: file)
        } else {
            let scratch = try Host.allocatePixels(view.call, width: stored.width, height: stored.height, format: IP_PIXEL_RGBA8)
            defer { Host.freePixels(view.call, scratch.pixels) }
            guard let rows = scratch.pixels, Int(scratch.stride) == stored.width * 4 else {
                throw PluginFailure.internalError("the host's scratch rows are not packed")
            }
            try read(&reader, into: UnsafeMutableRawPointer(rows), width: stored.width, height: stored.height, file: file)
            place(UnsafeRawPointer(rows).assumingMemoryBound(to: UInt32.self), stored: stored, orientation: orientation,
                  into: pixels, stride: Int(output.stride))
        }
        try Host.checkCancellation(view.call)
        output.alpha_mode = ip_alpha_mode(file.hasAlpha ? IP_ALPHA_PREMULTIPLIED : IP_ALPHA_NONE)
        output.duration_ms = 0
        output.index = UInt32(view.options.page_index)
        color.write(into: &output, call: view.call)
        ABIStruct.write(output, to: image)
    }

    /// Rows one read of the RGBA interface decodes whole: a strip's, or a row of tiles' (a band that cut a strip
    /// or tile would decode it again for each band).
    private static func bandRows(_ file: TIFFFile) -> Int {
        var rows: UInt32 = 0
        let tag = TIFFIsTiled(file.tiff) != 0 ? TIFFTAG_TILELENGTH : TIFFTAG_ROWSPERSTRIP
        guard ip_tiff_u32(file.tiff, UInt32(tag), &rows) != 0, rows > 0 else { return file.storedSize.height }
        return min(Int(rows), file.storedSize.height)
    }

    /// Shrink-on-load for a thumbnail of a page without a reduced copy small enough: strip by strip (or row of
    /// tiles by row of tiles) through the RGBA interface into `factor` x `factor` block averages (BoxShrink), so only
    /// one band of the full size and the reduced image are held — never the whole page, as libvips streams strips
    /// through its shrink. The orientation is applied to the reduced image. Alpha stays associated, as the interface
    /// gives it, and the blocks average it as it is (the host's own average of premultiplied pixels).
    private static func readReduced(_ reader: inout TIFFRGBAImage, file: TIFFFile, stored: (width: Int, height: Int), factor: Int,
                                    bandRows: Int, orientation: Int, call: OpaquePointer?) throws -> ip_image {
        let reduced = (width: Int(bxs_reduced(UInt32(stored.width), UInt32(factor))),
                       height: Int(bxs_reduced(UInt32(stored.height), UInt32(factor))))
        let band = try Host.allocatePixels(call, width: stored.width, height: bandRows, format: IP_PIXEL_RGBA8)
        defer { Host.freePixels(call, band.pixels) }
        let (displayWidth, displayHeight) = orientation > 4 ? (reduced.height, reduced.width) : reduced
        let output = try Host.allocatePixels(call, width: displayWidth, height: displayHeight, format: IP_PIXEL_RGBA8)
        let scratch = orientation == 1 ? nil : try Host.allocatePixels(call, width: reduced.width, height: reduced.height, format: IP_PIXEL_RGBA8)
        defer { if let scratch { Host.freePixels(call, scratch.pixels) } }
        guard let rows = band.pixels, Int(band.stride) == stored.width * 4, let target = (scratch ?? output).pixels else {
            throw PluginFailure.internalError("the host's band rows are not packed")
        }
        var layout = bxs_layout(width: UInt32(stored.width), height: UInt32(stored.height), factor: UInt32(factor), sample16: 0,
                                straight_alpha: 0, out: target, out_stride: Int((scratch ?? output).stride))
        guard let shrinker = bxs_create(&layout) else { throw PluginFailure(IP_STATUS_NO_MEMORY, "no memory for the row sums of a reduced decode") }
        defer { bxs_destroy(shrinker) }
        for first in stride(from: 0, to: stored.height, by: bandRows) {
            try Host.checkCancellation(call)
            let count = min(bandRows, stored.height - first)
            reader.row_offset = Int32(first)
            try read(&reader, into: UnsafeMutableRawPointer(rows), width: stored.width, height: count, file: file)
            for row in 0..<count { bxs_push(shrinker, rows + row * stored.width * 4) }
        }
        if let scratch, let reducedRows = scratch.pixels, let pixels = output.pixels {
            place(UnsafeRawPointer(reducedRows).assumingMemoryBound(to: UInt32.self), stored: reduced, orientation: orientation,
                  into: pixels, stride: Int(output.stride))
        }
        return output
    }

    /// The page through the RGBA interface into packed rows, top row first.
    private static func read(_ reader: inout TIFFRGBAImage, into raster: UnsafeMutableRawPointer, width: Int, height: Int, file: TIFFFile) throws {
        let words = raster.assumingMemoryBound(to: UInt32.self)
        guard TIFFRGBAImageGet(&reader, words, UInt32(width), UInt32(height)) != 0 else {
            throw PluginFailure.invalidData(file.error.isEmpty ? "libtiff could not read the image" : file.error)
        }
    }

    /// Copies packed stored pixels (one `Pixel` each: UInt32 for RGBA8, UInt64 for RGBA16) to the display layout of
    /// the EXIF/TIFF orientation 1–8, display (x, y) reading stored (sx, sy).
    private static func place<Pixel>(_ source: UnsafePointer<Pixel>, stored: (width: Int, height: Int), orientation: Int,
                                     into target: UnsafeMutablePointer<UInt8>, stride: Int) {
        let (sw, sh) = stored
        let displayWidth = orientation > 4 ? sh : sw, displayHeight = orientation > 4 ? sw : sh
        for y in 0..<displayHeight {
            let row = UnsafeMutableRawPointer(target + y * stride).assumingMemoryBound(to: Pixel.self)
            for x in 0..<displayWidth {
                let (sx, sy): (Int, Int)
                switch orientation {
                case 2: (sx, sy) = (sw - 1 - x, y)
                case 3: (sx, sy) = (sw - 1 - x, sh - 1 - y)
                case 4: (sx, sy) = (x, sh - 1 - y)
                case 5: (sx, sy) = (y, x)
                case 6: (sx, sy) = (y, sh - 1 - x)
                case 7: (sx, sy) = (sw - 1 - y, sh - 1 - x)
                case 8: (sx, sy) = (sw - 1 - y, x)
                default: (sx, sy) = (x, y)
                }
                row[x] = source[sy * sw + sx]
            }
        }
    }

    static func displaySize(_ file: TIFFFile, ignoreOrientation: Bool) -> (Int, Int) {
        let (width, height) = file.storedSize
        return !ignoreOrientation && file.orientation > 4 ? (height, width) : (width, height)
    }

    /// An RGB (or grey) page's ICC profile; none for CMYK, which is sRGB once converted (through its profile, or
    /// naively by the RGBA interface).
    static func colorFacts(_ file: TIFFFile) -> ColorFacts { ColorFacts(icc: file.iccProfile) }
}
