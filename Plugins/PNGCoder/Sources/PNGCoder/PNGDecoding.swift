import BoxShrink
import PNGCodec
import PluginAPI
import PluginKit

/// Probe and decode: Swift checks the request and the limits, PNGCodec does the libpng work.
enum PNGDecoding {
    /// Reads the header and fills the host's info struct.
    static func probe(
        _ request: UnsafePointer<ip_decode_request>?, into target: UnsafeMutablePointer<ip_image_info>?
    ) throws {
        guard let target else { throw PluginFailure.internalError("NULL info") }
        let view = try DecodeRequestView(request)
        var header = try readHeader(view)
        defer { pngc_info_release(&header) }
        var info = ip_image_info()
        info.struct_size = UInt32(MemoryLayout<ip_image_info>.size)
        info.width = header.width
        info.height = header.height
        info.frame_count = 1
        info.page_count = 1
        info.loop_count = -1
        info.bit_depth = UInt32(header.channelBitDepth)
        info.has_alpha = header.hasAlpha ? 1 : 0
        var color = ip_image()
        writeColor(header, into: &color, call: view.call)
        info.copyColor(from: color)
        // Read by ranges, only the prefix is searched (eXIf and iTXt come before the image data in the files
        // cameras and editors write; the host reads a file whole when it keeps metadata).
        PNGMetadata.blocks(in: view.data).write(into: &info, call: view.call)
        setInfoStrings(&info, format: "png", details: header.details)
        ABIStruct.write(info, to: target)
    }

    /// Decodes the image into a host buffer: at full size, or reduced by whole blocks for a thumbnail (the host
    /// finishes the size: the coder lacks IP_CODER_SCALES).
    static func decode(_ request: UnsafePointer<ip_decode_request>?, into target: UnsafeMutablePointer<ip_image>?) throws {
        guard let target else { throw PluginFailure.internalError("NULL image") }
        let view = try DecodeRequestView(request)
        if view.options.page_index > 0 { throw PluginFailure.notFound("a PNG has one page; page \(view.options.page_index) asked") }
        if view.options.frame_index > 0 { throw PluginFailure.notFound("a PNG has one frame; frame \(view.options.frame_index) asked") }
        var header = try readHeader(view)
        defer { pngc_info_release(&header) }
        let width = Int(header.width), height = Int(header.height)
        // Limits first: nothing has been allocated yet beyond libpng's header structs.
        try view.checkLimits(width: width, height: height)
        let minimum = pngc_minimum_file_size(&header)
        if view.sourceSize < minimum {
            throw PluginFailure.truncated(
                "PNG header claims \(width)x\(height) (\(header.details)), which needs at least \(minimum) bytes; "
                    + "the data has \(view.sourceSize)")
        }
        let output16 = view.has(UInt32(IP_DECODE_HIGH_BIT_DEPTH)) && header.bit_depth == 16
        let factor = header.interlaced == 0 ? StandIn(full: width, height, request: view)?.blockFactor() ?? 1 : 1
        var image = factor > 1
            ? try decodeReduced(view, header: &header, factor: factor, output16: output16)
            : try decodeFull(view, header: &header, output16: output16)
        image.alpha_mode = header.hasAlpha ? IP_ALPHA_STRAIGHT : IP_ALPHA_NONE
        image.duration_ms = 0
        image.index = 0
        writeColor(header, into: &image, call: view.call)
        ABIStruct.write(image, to: target)
    }

    private static func decodeFull(_ view: DecodeRequestView, header: inout pngc_info, output16: Bool) throws -> ip_image {
        let width = Int(header.width), height = Int(header.height)
        let image = try Host.allocatePixels(
            view.call, width: width, height: height, format: output16 ? IP_PIXEL_RGBA16 : IP_PIXEL_RGBA8)
        guard let pixels = image.pixels else { throw PluginFailure.internalError("host returned no pixels") }
        try withRanged(view) { ranged in
            try codecCall { message in
                pngc_decode(
                    view.data.baseAddress, view.data.count, ranged, &header, output16 ? 1 : 0, pixels, Int(image.stride),
                    CodecCall.cancellationCallback, view.call.map { UnsafeMutableRawPointer($0) }, message)
            }
        }
        return image
    }

    /// Shrink-on-load for a thumbnail: rows are averaged in `factor` x `factor` blocks as libpng produces them, so
    /// the full-size image is never held (a 12000 x 12000 PNG would take 576 MB), only the reduced one that the
    /// host's resampler finishes as it would have finished the full one (StandIn's block rule).
    private static func decodeReduced(_ view: DecodeRequestView, header: inout pngc_info, factor: Int, output16: Bool) throws -> ip_image {
        let reducedWidth = Int(bxs_reduced(header.width, UInt32(factor)))
        let reducedHeight = Int(bxs_reduced(header.height, UInt32(factor)))
        let image = try Host.allocatePixels(
            view.call, width: reducedWidth, height: reducedHeight, format: output16 ? IP_PIXEL_RGBA16 : IP_PIXEL_RGBA8)
        guard let pixels = image.pixels else { throw PluginFailure.internalError("host returned no pixels") }
        var layout = bxs_layout(width: header.width, height: header.height, factor: UInt32(factor), sample16: output16 ? 1 : 0,
                                straight_alpha: header.hasAlpha ? 1 : 0, out: pixels, out_stride: Int(image.stride))
        guard let shrinker = bxs_create(&layout) else { throw PluginFailure(IP_STATUS_NO_MEMORY, "no memory for the row sums of a reduced decode") }
        defer { bxs_destroy(shrinker) }
        try withRanged(view) { ranged in
            try codecCall { message in
                pngc_decode_reduced(
                    view.data.baseAddress, view.data.count, ranged, &header, output16 ? 1 : 0, shrinker,
                    CodecCall.cancellationCallback, view.call.map { UnsafeMutableRawPointer($0) }, message)
            }
        }
        guard bxs_rows_pushed(shrinker) == header.height else {
            throw PluginFailure.internalError("the reduced decode saw \(bxs_rows_pushed(shrinker)) of \(header.height) rows")
        }
        return image
    }

    /// The colour chunks' facts in ABI form, the profile copied into host memory (left out if the host refuses).
    private static func writeColor(_ header: pngc_info, into image: inout ip_image, call: OpaquePointer?) {
        image.color_flags = header.color_flags & ~UInt32(IP_COLOR_ICC)
        if header.color_flags & UInt32(IP_COLOR_ICC) != 0, let profile = header.icc_profile, header.icc_size > 0,
           let buffer = Host.allocateBytes(call, count: Int(header.icc_size)) {
            buffer.update(from: profile, count: Int(header.icc_size))
            image.icc_profile = buffer
            image.icc_size = header.icc_size
            image.color_flags |= UInt32(IP_COLOR_ICC)
        }
        image.gamma = header.gamma
        image.chromaticities = header.chromaticities
    }

    private static func readHeader(_ view: DecodeRequestView) throws -> pngc_info {
        var header = pngc_info()
        try withRanged(view) { ranged in
            try codecCall { message in pngc_probe(view.data.baseAddress, view.data.count, ranged, &header, message) }
        }
        return header
    }

    /// The request's ranged source in PNGCodec's form (nil: `data` is the whole PNG), for one codec call.
    private static func withRanged<R>(_ view: DecodeRequestView, _ body: (UnsafePointer<pngc_ranged>?) throws -> R) rethrows -> R {
        guard let source = view.ranged else { return try body(nil) }
        var ranged = pngc_ranged(size: source.size, read_at: source.read_at, context: source.context)
        return try withUnsafePointer(to: &ranged) { try body($0) }
    }
}
