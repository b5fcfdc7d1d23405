import CHEIF
import PluginAPI
import PluginKit

/// probe and decode: what the coder's C slots call inside `withStatus`.
///
/// Pages are top-level images: page 0 is the primary image, then the others in file order (so page 0 is what
/// every viewer shows even when the primary image is not the first in the file). There is one frame per page:
/// libheif 1.15 does not read HEIF image sequences.
enum HEIFDecoding {
    static func probe(_ request: UnsafePointer<ip_decode_request>?, into info: UnsafeMutablePointer<ip_image_info>?) throws {
        guard let info else { throw PluginFailure.internalError("NULL info") }
        let view = try DecodeRequestView(request)
        try checkInput(view)
        let file = try HEIFFile.open(view.data, maxDimension: view.options.limits.max_dimension, threads: view.options.threads)
        let pages = try file.pageIDs()
        let image = try file.handle(page: Int(view.options.page_index))
        let ignore = view.has(UInt32(IP_DECODE_IGNORE_ORIENTATION))
        var result = ip_image_info()
        result.width = UInt32(clamping: image.width)
        result.height = UInt32(clamping: image.height)
        result.frame_count = 1
        result.page_count = UInt32(pages.count)
        result.loop_count = -1
        result.bit_depth = UInt32(clamping: max(image.lumaBits, 1))
        result.has_alpha = image.hasAlpha ? 1 : 0
        HEIFColor.facts(image.raw).write(into: &result, call: view.call)
        image.metadata.write(into: &result, call: view.call)
        // A thumbnail libheif cannot open is left out, as decode() would leave it unused.
        let thumbnails = (try? image.thumbnails()) ?? []
        var details = [
            pages.count == 1 ? "1 top-level image" : "\(pages.count) top-level images, page 0 = primary (#\(primaryPosition(file, pages)) in file)",
            "coded \(image.codedWidth)x\(image.codedHeight)",
            thumbnails.isEmpty ? "no thumbnail"
                : "thumbnails " + thumbnails.map { "\($0.width)x\($0.height)" }.joined(separator: ","),
        ]
        if image.exifCount > 0 { details.append("Exif") }
        if image.xmpCount > 0 { details.append("XMP") }
        if image.hasDepth { details.append("depth image") }
        if let note = file.primaryNote { details.append(note) }
        if !file.disabledReferences.isEmpty {
            details.append("ignored references to missing items: " + file.disabledReferences.joined(separator: ", "))
        }
        if let box = view.thumbnailSize {
            let size = image.outputSize(ignoringTransformations: ignore)
            let choice = ThumbnailChoice.choose(for: image, size: size, thumbnails: thumbnails, request: view, ignoringTransformations: ignore)
            details.append("at \(box.width)x\(box.height): " + (choice.map { "embedded thumbnail \($0.width)x\($0.height)" } ?? "full decode"))
        }
        setInfoStrings(&result, format: "heif", details: details.joined(separator: "; "))
        ABIStruct.write(result, to: info)
    }

    static func decode(_ request: UnsafePointer<ip_decode_request>?, into output: UnsafeMutablePointer<ip_image>?) throws {
        guard let output else { throw PluginFailure.internalError("NULL image") }
        let view = try DecodeRequestView(request)
        try checkInput(view)
        if view.options.frame_index > 0 {
            throw PluginFailure.notFound("a HEIF image has one frame; frame \(view.options.frame_index) does not exist (libheif 1.15 reads no sequences)")
        }
        try Host.checkCancellation(view.call)
        let file = try HEIFFile.open(view.data, maxDimension: view.options.limits.max_dimension, threads: view.options.threads)
        let page = Int(view.options.page_index)
        let image = try file.handle(page: page)
        let ignore = view.has(UInt32(IP_DECODE_IGNORE_ORIENTATION))
        let size = image.outputSize(ignoringTransformations: ignore)
        guard size.width > 0, size.height > 0 else {
            throw PluginFailure.invalidData("the image has no size (\(size.width)x\(size.height)): its 'ispe' box is missing or zero")
        }
        // The output format follows the image, not the thumbnail, so both paths return the same kind of pixels.
        let color = HEIFColor.facts(image.raw)
        let wide = (view.has(UInt32(IP_DECODE_HIGH_BIT_DEPTH)) || HEIFColor.isHDR(color)) && image.lumaBits > 8

        if let thumbnail = ThumbnailChoice.choose(
            for: image, size: size, thumbnails: (try? image.thumbnails()) ?? [], request: view, ignoringTransformations: ignore)
        {
            do {
                var result = try render(thumbnail.handle, size: (thumbnail.width, thumbnail.height), wide: wide, view: view)
                Host.log(IP_LOG_DEBUG, "decoded embedded thumbnail \(thumbnail.width)x\(thumbnail.height) instead of \(size.width)x\(size.height) for a \(view.options.thumbnail_width)x\(view.options.thumbnail_height) request")
                result.index = UInt32(page)
                color.write(into: &result, call: view.call)
                ABIStruct.write(result, to: output)
                return
            } catch let failure as PluginFailure where failure.status != ip_status(IP_STATUS_CANCELLED) {
                // A broken thumbnail must not cost the image: fall back to the full decode.
                Host.log(IP_LOG_INFO, "embedded thumbnail failed (\(failure.message)); decoding the full image")
            }
        }
        var result = try render(image, size: size, wide: wide, view: view)
        result.index = UInt32(page)
        color.write(into: &result, call: view.call)
        ABIStruct.write(result, to: output)
    }

    /// Checks the limits, decodes `handle` through libheif (transformations applied unless the request ignores
    /// orientation) and copies it into a host buffer.
    private static func render(_ handle: HEIFHandle, size: (width: Int, height: Int), wide: Bool, view: DecodeRequestView) throws -> ip_image {
        // libheif decodes at the coded size first, then crops: both must be within the limits.
        try view.checkLimits(width: size.width, height: size.height)
        try view.checkLimits(width: handle.codedWidth, height: handle.codedHeight)
        try Host.checkCancellation(view.call)

        guard let options = heif_decoding_options_alloc() else {
            throw PluginFailure(IP_STATUS_NO_MEMORY, "libheif could not allocate decoding options")
        }
        defer { heif_decoding_options_free(options) }
        options.pointee.ignore_transformations = view.has(UInt32(IP_DECODE_IGNORE_ORIENTATION)) ? 1 : 0
        options.pointee.convert_hdr_to_8bit = wide ? 0 : 1
        HEVCThreads.prepare(for: handle, view: view)
        var decoded: OpaquePointer?
        let chroma = wide ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RGBA
        try HEIFFailure.check(heif_decode_image(handle.raw, &decoded, heif_colorspace_RGB, chroma, options), "decoding", data: view.data)
        guard let decoded else { throw PluginFailure.internalError("libheif returned no image") }
        defer { heif_image_release(decoded) }
        try Host.checkCancellation(view.call)

        let width = Int(heif_image_get_primary_width(decoded)), height = Int(heif_image_get_primary_height(decoded))
        var stride: Int32 = 0
        guard width > 0, height > 0, let plane = heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &stride),
              Int(stride) >= width * (wide ? 8 : 4) else {
            throw PluginFailure.internalError("libheif returned an unusable \(width)x\(height) image")
        }
        var image = try Host.allocatePixels(view.call, width: width, height: height, format: wide ? IP_PIXEL_RGBA16 : IP_PIXEL_RGBA8)
        if wide {
            let bits = Int(heif_image_get_bits_per_pixel_range(decoded, heif_channel_interleaved))
            try PixelTransfer.copyRGBA16(from: plane, stride: Int(stride), bits: bits, into: image, call: view.call)
        } else {
            try PixelTransfer.copyRGBA8(from: plane, stride: Int(stride), into: image, call: view.call)
        }
        if !handle.hasAlpha {
            image.alpha_mode = IP_ALPHA_NONE
        } else {
            image.alpha_mode = heif_image_is_premultiplied_alpha(decoded) != 0 ? IP_ALPHA_PREMULTIPLIED : IP_ALPHA_STRAIGHT
        }
        image.duration_ms = 0
        return image
    }

    /// 1-based position of the primary image among the top-level images in file order.
    private static func primaryPosition(_ file: HEIFFile, _ pages: [heif_item_id]) -> Int {
        let count = pages.count
        var ids = [heif_item_id](repeating: 0, count: count)
        let filled = Int(heif_context_get_list_of_top_level_image_IDs(file.context, &ids, Int32(count)))
        return (ids.prefix(max(0, min(filled, count))).firstIndex(of: pages[0]) ?? 0) + 1
    }

    /// Rejects empty input before libheif sees it (the kit has checked the input size).
    private static func checkInput(_ view: DecodeRequestView) throws {
        if view.data.isEmpty { throw PluginFailure.invalidData("empty input: not a HEIF file") }
    }
}
