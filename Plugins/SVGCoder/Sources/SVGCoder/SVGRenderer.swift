import CRsvg
import PluginAPI
import PluginKit

/// Draws a document straight into the output pixels at the output size: vector rendering at the final
/// resolution, never a bitmap rendered small and scaled up afterwards.
enum SVGRenderer {
    /// cairo image surfaces cannot be larger than this on either side.
    static let maxDimension = 32767

    /// Renders like rsvg-convert: the whole document into a viewport of its intrinsic size, under a transform
    /// that moves and scales that viewport onto the output. Separate x and y factors give `fill` its stretch
    /// (render_document alone always keeps the aspect ratio); a negative offset with a larger scale is the centred
    /// crop of aspect-fill. `image.pixels` must be zeroed (transparent), as alloc_pixels guarantees.
    static func render(_ document: SVGDocument, intrinsic: IntrinsicSize, placement: ip_placement, into image: ip_image) throws {
        guard let pixels = image.pixels else { throw PluginFailure.internalError("image without pixels") }
        let width = Int32(image.width), height = Int32(image.height), stride = Int32(image.stride)
        // cairo can draw into the host's buffer directly when the row stride suits it (it always does for
        // a tightly packed or 4-byte-aligned RGBA8 buffer); otherwise draw into cairo's own and copy.
        let direct = stride >= cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, width) && stride % 4 == 0
        let surface = direct
            ? cairo_image_surface_create_for_data(pixels, CAIRO_FORMAT_ARGB32, width, height, stride)
            : cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height)
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            throw PluginFailure(IP_STATUS_NO_MEMORY, "cairo cannot create a \(width)x\(height) surface")
        }

        let context = cairo_create(surface)
        defer { cairo_destroy(context) }
        cairo_translate(context, placement.offset_x, placement.offset_y)
        cairo_scale(context, placement.scale_x, placement.scale_y)
        var viewport = RsvgRectangle(x: 0, y: 0, width: intrinsic.width, height: intrinsic.height)
        var error: UnsafeMutablePointer<GError>? = nil
        let ok = rsvg_handle_render_document(document.handle, context, &viewport, &error)
        cairo_surface_flush(surface)
        if ok == 0 {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if let error { g_error_free(error) }
            throw PluginFailure.invalidData("cannot render the SVG: \(message)")
        }
        if !direct, let source = cairo_image_surface_get_data(surface) {
            let sourceStride = Int(cairo_image_surface_get_stride(surface))
            for y in 0..<Int(height) {
                (pixels + y * Int(stride)).update(from: source + y * sourceStride, count: Int(width) * 4)
            }
        }
    }
}
