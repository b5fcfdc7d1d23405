import JPEGCodec
import PluginAPI
import PluginKit

/// Probe and decode: Swift checks the request, the limits and the scale, JPEGCodec does the libjpeg work.
enum JPEGDecoding {
    /// libjpeg's own memory ceiling (coefficient buffers of progressive files) when the host sets no pixel limit.
    static let defaultMaxMemory: UInt64 = 2 << 30

    /// Reads the header and fills the host's info struct with the displayed (oriented) size.
    static func probe(
        _ request: UnsafePointer<ip_decode_request>?, into target: UnsafeMutablePointer<ip_image_info>?
    ) throws {
        guard let target else { throw PluginFailure.internalError("NULL info") }
        let view = try DecodeRequestView(request)
        let header = try readHeader(view.data)
        let size = header.displayedSize(orientation: orientation(of: header, view))
        var info = ip_image_info()
        info.struct_size = UInt32(MemoryLayout<ip_image_info>.size)
        info.width = UInt32(size.width)
        info.height = UInt32(size.height)
        info.frame_count = 1
        info.page_count = 1
        info.loop_count = -1
        info.bit_depth = UInt32(header.precision)
        info.has_alpha = 0
        let color = JPEGColor(data: view.data, header: header)
        color.reportedFacts.write(into: &info, call: view.call)
        metadata(of: view.data).write(into: &info, call: view.call)
        setInfoStrings(&info, format: "jpeg", details: header.details)
        ABIStruct.write(info, to: target)
    }

    /// The APP1 Exif block and XMP packet, as stored.
    static func metadata(of data: UnsafeBufferPointer<UInt8>) -> MetadataBlocks {
        var exifOffset = 0, exifSize = 0, xmpOffset = 0, xmpSize = 0
        jpegc_metadata(data.baseAddress, data.count, &exifOffset, &exifSize, &xmpOffset, &xmpSize)
        func bytes(_ offset: Int, _ size: Int) -> [UInt8]? {
            size > 0 && offset + size <= data.count ? Array(data[offset..<offset + size]) : nil
        }
        return MetadataBlocks(exif: bytes(exifOffset, exifSize), xmp: bytes(xmpOffset, xmpSize))
    }

    /// Decodes the image, shrunk on load for a thumbnail request (the host finishes the resampling).
    static func decode(_ request: UnsafePointer<ip_decode_request>?, into target: UnsafeMutablePointer<ip_image>?) throws {
        guard let target else { throw PluginFailure.internalError("NULL image") }
        let view = try DecodeRequestView(request)
        ABIStruct.write(try decode(view, preview: false), to: target)
    }

    /// The shared path of `decode` and incremental previews. A preview returns the best image the bytes allow or
    /// throws NEED_MORE; a full decode throws TRUNCATED for incomplete data.
    static func decode(_ view: DecodeRequestView, preview: Bool) throws -> ip_image {
        try view.checkInputSize()
        if view.options.page_index > 0 { throw PluginFailure.notFound("a JPEG has one page; page \(view.options.page_index) asked") }
        if view.options.frame_index > 0 { throw PluginFailure.notFound("a JPEG has one frame; frame \(view.options.frame_index) asked") }
        var header: jpegc_info
        do {
            header = try readHeader(view.data)
        } catch let failure as PluginFailure where preview && failure.status == ip_status(IP_STATUS_TRUNCATED) {
            throw PluginFailure(IP_STATUS_NEED_MORE, "the JPEG header is not complete yet")
        }
        if header.decodable == 0 {
            throw PluginFailure.unsupported(
                "\(header.precision)-bit JPEG is not supported: this libjpeg-turbo build decodes 8-bit samples only")
        }
        if header.width > UInt32(JPEGC_MAX_DIMENSION) || header.height > UInt32(JPEGC_MAX_DIMENSION) {
            throw PluginFailure.limitExceeded(
                "JPEG of \(header.width)x\(header.height) is over libjpeg's maximum of \(JPEGC_MAX_DIMENSION) pixels a side")
        }
        let orientation = orientation(of: header, view)
        let full = header.displayedSize(orientation: orientation)
        // Limits first, on the full size (the ABI counts intermediate full-size pixels, and libjpeg's coefficient
        // buffers are full-size even when it scales): nothing has been allocated yet beyond libjpeg's header structs.
        try view.checkLimits(width: full.width, height: full.height)
        // A file too short to hold one bit per block is truncated whatever it holds: say so before allocating
        // (a small file claiming 65500x65500 pixels costs nothing). Previews expect partial data: no check.
        if !preview, UInt64(view.data.count) < header.minimum_size {
            throw PluginFailure.truncated(
                "JPEG header claims \(header.width)x\(header.height), which needs at least \(header.minimum_size) bytes; "
                    + "the data has \(view.data.count)")
        }
        let scale = ShrinkOnLoad.scale(for: header, orientation: orientation, options: view.options)
        let storedWidth = Int(jpegc_scaled_dimension(header.width, scale))
        let storedHeight = Int(jpegc_scaled_dimension(header.height, scale))
        let (width, height) = jpegc_info.transposes(orientation) ? (storedHeight, storedWidth) : (storedWidth, storedHeight)
        var image = try Host.allocatePixels(view.call, width: width, height: height, format: IP_PIXEL_RGBA8)
        guard let pixels = image.pixels else { throw PluginFailure.internalError("host returned no pixels") }
        let color = JPEGColor(data: view.data, header: header)
        let cmykTransform = color.cmykTransform()
        defer { jpegc_cmyk_transform_destroy(cmykTransform) }
        var parameters = jpegc_decode_params(
            data: view.data.baseAddress, size: view.data.count, expected: nil, scale_num: scale,
            orientation: orientation, pixels: pixels, out_width: UInt32(width), out_height: UInt32(height),
            stride: Int(image.stride), max_memory: maxMemory(view.options.limits),
            max_scans: UInt32(JPEGC_DEFAULT_MAX_SCANS), cancelled: CodecCall.cancellationCallback,
            cancel_context: view.call.map { UnsafeMutableRawPointer($0) }, cmyk_transform: cmykTransform)
        try withUnsafePointer(to: &header) { expected in
            parameters.expected = expected
            if preview {
                var result = jpegc_preview_result()
                try codecCall { message in jpegc_decode_preview(&parameters, &result, message) }
            } else {
                try codecCall { message in jpegc_decode(&parameters, message) }
            }
        }
        image.alpha_mode = IP_ALPHA_NONE
        image.duration_ms = 0
        image.index = 0
        // A CMYK file converted through its profile is sRGB now; otherwise the host converts from the profile.
        if cmykTransform == nil { color.reportedFacts.write(into: &image, call: view.call) }
        return image
    }

    /// The orientation to apply: the Exif one unless the caller asked to ignore it.
    static func orientation(of header: jpegc_info, _ view: DecodeRequestView) -> Int32 {
        view.has(UInt32(IP_DECODE_IGNORE_ORIENTATION)) ? 1 : header.orientation
    }

    /// libjpeg's memory ceiling: enough for the coefficients of the largest image the limits allow (4 components,
    /// 2 bytes each, plus working space), or `defaultMaxMemory` without a pixel limit.
    static func maxMemory(_ limits: ip_limits) -> UInt64 {
        guard limits.max_pixels > 0 else { return defaultMaxMemory }
        let (product, overflow) = limits.max_pixels.multipliedReportingOverflow(by: 8)
        return overflow ? UInt64(Int64.max) : product + (64 << 20)
    }

    private static func readHeader(_ data: UnsafeBufferPointer<UInt8>) throws -> jpegc_info {
        var header = jpegc_info()
        try codecCall { message in jpegc_probe(data.baseAddress, data.count, &header, message) }
        return header
    }
}
