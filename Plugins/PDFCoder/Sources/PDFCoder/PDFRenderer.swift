import CPoppler
import PluginAPI
import PluginKit

/// Renders one page of a PDF into a host-allocated RGBA8 image.
///
/// Geometry: without a requested size the page is drawn at 72 dpi (1 pt = 1 px) on a canvas of the display
/// size rounded up, like `pdftoppm -r 72 -cropbox`. With a size, the host's placement decides the output and scale for
/// fit / fill / aspect-fill, always with upscaling allowed: a vector page has no "native" resolution, so a
/// caller who asks for 2000 px gets sharp 2000 px rather than a 72-dpi bitmap.
///
/// Rotation and crop box: `poppler_page_render` itself maps the crop box origin to (0, 0) and applies /Rotate
/// (checked against `pdftocairo -cropbox`: byte-identical at 72 dpi), so the only transform added here is the
/// placement's scale and offset. Adding a rotation of our own would turn the page twice.
enum PDFRenderer {
    /// cairo image surfaces are limited to 32767 pixels per side.
    static let cairoMaxDimension = 32767

    static func decode(_ request: DecodeRequestView) throws -> ip_image {
        let document = try PDFDocument.open(request)
        let page = try document.page(at: Int(request.options.page_index))
        let size = try page.requireDrawableSize()
        let placement = self.placement(pageWidth: size.width, pageHeight: size.height, request: request)
        let width = Int(placement.out_width), height = Int(placement.out_height)
        try request.checkLimits(width: width, height: height)
        guard width <= cairoMaxDimension, height <= cairoMaxDimension else {
            throw PluginFailure.limitExceeded(
                "\(width)x\(height) exceeds cairo's limit of \(cairoMaxDimension) pixels per side")
        }
        try Host.checkCancellation(request.call)

        var image = try Host.allocatePixels(request.call, width: width, height: height, format: IP_PIXEL_RGBA8)
        let output = outputKind(request)
        try draw(page, into: image, placement: placement, whiteBackground: output == .opaque)
        // poppler cannot be interrupted mid-page; honour a cancellation that arrived meanwhile.
        try Host.checkCancellation(request.call)
        try CairoPixels.convert(image, to: output, call: request.call)

        image.alpha_mode = output.alphaMode
        image.duration_ms = 0
        image.index = UInt32(page.index)
        return image
    }

    /// The output size and transform for a page of `pageWidth` x `pageHeight` points.
    static func placement(pageWidth: Double, pageHeight: Double, request: DecodeRequestView) -> ip_placement {
        guard let box = request.thumbnailSize else {
            // Intrinsic: 1 pt = 1 px, canvas rounded up (a 19.4 pt page becomes 20 px, as with pdftoppm).
            return ip_placement(
                struct_size: UInt32(MemoryLayout<ip_placement>.size), out_width: clampedDimension(pageWidth.rounded(.up)),
                out_height: clampedDimension(pageHeight.rounded(.up)),
                scale_x: 1, scale_y: 1, offset_x: 0, offset_y: 0)
        }
        return Host.place(sourceWidth: pageWidth, sourceHeight: pageHeight, boxWidth: UInt32(box.width),
                          boxHeight: UInt32(box.height), mode: request.options.scale_mode, allowUpscale: true)
    }

    /// What the pixels mean after rendering: the background rule and template tinting.
    static func outputKind(_ request: DecodeRequestView) -> CairoPixels.Output {
        if let tint = request.options.tint, tint.template { return .template(rgba: tint.rgba) }
        return request.has(UInt32(IP_DECODE_TRANSPARENT_BACKGROUND)) ? .transparent : .opaque
    }

    /// Draws the page with cairo straight into the host's buffer (ARGB32, premultiplied, native-endian).
    private static func draw(
        _ page: PDFPage, into image: ip_image, placement: ip_placement, whiteBackground: Bool
    ) throws {
        guard let pixels = image.pixels, image.stride % 4 == 0 else {
            throw PluginFailure.internalError("host pixel buffer is not usable as a cairo surface")
        }
        guard let surface = cairo_image_surface_create_for_data(
            pixels, CAIRO_FORMAT_ARGB32, Int32(image.width), Int32(image.height), Int32(image.stride))
        else { throw PluginFailure(IP_STATUS_NO_MEMORY, "cannot create a cairo surface") }
        defer { cairo_surface_destroy(surface) }
        try check(cairo_surface_status(surface), "cairo surface")

        guard let context = cairo_create(surface) else {
            throw PluginFailure(IP_STATUS_NO_MEMORY, "cannot create a cairo context")
        }
        defer { cairo_destroy(context) }
        if whiteBackground {
            cairo_set_source_rgb(context, 1, 1, 1)
            cairo_paint(context)
        }
        cairo_translate(context, placement.offset_x, placement.offset_y)
        cairo_scale(context, placement.scale_x, placement.scale_y)
        poppler_page_render(page.handle, context)
        try check(cairo_status(context), "rendering page \(page.index + 1)")
        cairo_surface_flush(surface)
    }

    private static func check(_ status: cairo_status_t, _ what: String) throws {
        guard status != CAIRO_STATUS_SUCCESS else { return }
        let text = cairo_status_to_string(status).map { String(cString: $0) } ?? "error \(status.rawValue)"
        if status == CAIRO_STATUS_NO_MEMORY { throw PluginFailure(IP_STATUS_NO_MEMORY, "\(what): \(text)") }
        throw PluginFailure.internalError("\(what): cairo \(text)")
    }

    private static func clampedDimension(_ value: Double) -> UInt32 {
        guard value.isFinite, value >= 1 else { return 1 }
        return value >= Double(UInt32.max) ? UInt32.max : UInt32(value)
    }
}
