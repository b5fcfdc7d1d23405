import CRsvg
import PluginKit

/// The size an SVG has when nobody asks for one, in CSS pixels at 96 dpi.
struct IntrinsicSize {
    var width: Double
    var height: Double
    /// Where the size came from, for `probe` details.
    var source: String

    /// Whole pixels, rounded up like rsvg-convert (so a partly covered last column is not chopped off).
    var pixelWidth: Int { Int(width.rounded(.up)) }
    var pixelHeight: Int { Int(height.rounded(.up)) }

    /// The size used for a document that has no size, no viewBox and draws nothing: 100 x 100 transparent
    /// pixels. (Browsers use 300 x 150 for a replaced element without any size; an empty icon-sized square
    /// is the less surprising answer for an image pipeline.)
    static let fallback = IntrinsicSize(width: 100, height: 100, source: "default 100x100 (no size, no viewBox, nothing drawn)")
}

extension SVGDocument {
    /// Resolves the intrinsic size the way rsvg-convert 2.54 does, so probe sizes match the reference tool:
    /// 1. `width` and `height` in absolute or font units (`rsvg_handle_get_intrinsic_size_in_pixels`);
    /// 2. else, with a `viewBox`: percentages (or missing sizes, which mean 100%) take the viewBox size, and one
    ///    absolute side derives the other from the viewBox's aspect ratio (`rsvg_handle_get_intrinsic_dimensions`);
    /// 3. else the extent of what the document draws (its ink rectangle), rendered from the origin like rsvg-convert;
    /// 4. else `IntrinsicSize.fallback`.
    /// An explicit zero (or a zero-sized viewBox) disables rendering per SVG and is an error, as in rsvg-convert.
    func intrinsicSize() throws -> IntrinsicSize {
        var width = 0.0
        var height = 0.0
        if rsvg_handle_get_intrinsic_size_in_pixels(handle, &width, &height) != 0 {
            return try validated(width, height, source: "width/height")
        }
        let dims = intrinsicDimensions()
        if let viewBox = dims.viewBox {
            guard viewBox.width > 0, viewBox.height > 0 else {
                throw PluginFailure.invalidData("the SVG has an empty viewBox and no size: nothing to render")
            }
            switch (dims.width.unit == RSVG_UNIT_PERCENT, dims.height.unit == RSVG_UNIT_PERCENT) {
            case (true, true):
                return try validated(viewBox.width, viewBox.height, source: "viewBox")
            case (false, true):
                let w = SVGDocument.pixels(dims.width)
                return try validated(w, w * viewBox.height / viewBox.width, source: "width + viewBox aspect")
            case (true, false):
                let h = SVGDocument.pixels(dims.height)
                return try validated(h * viewBox.width / viewBox.height, h, source: "height + viewBox aspect")
            case (false, false):
                break  // Unreachable: size_in_pixels succeeds when neither side is a percentage.
            }
        }
        var unit = RsvgRectangle(x: 0, y: 0, width: 1, height: 1)
        var ink = RsvgRectangle()
        var logical = RsvgRectangle()
        var error: UnsafeMutablePointer<GError>? = nil
        if rsvg_handle_get_geometry_for_layer(handle, nil, &unit, &ink, &logical, &error) != 0,
           ink.width > 0, ink.height > 0 {
            return try validated(ink.width, ink.height, source: "extent of the drawing")
        }
        if let error {
            let message = String(cString: error.pointee.message)
            g_error_free(error)
            throw PluginFailure.invalidData("cannot measure the SVG: \(message)")
        }
        return IntrinsicSize.fallback
    }

    /// The root's `width`, `height` and `viewBox` as written (missing sizes read as 100%).
    func intrinsicDimensions() -> (width: RsvgLength, height: RsvgLength, viewBox: RsvgRectangle?) {
        var hasWidth: gboolean = 0
        var hasHeight: gboolean = 0
        var hasViewBox: gboolean = 0
        var width = RsvgLength()
        var height = RsvgLength()
        var viewBox = RsvgRectangle()
        rsvg_handle_get_intrinsic_dimensions(handle, &hasWidth, &width, &hasHeight, &height, &hasViewBox, &viewBox)
        return (width, height, hasViewBox != 0 ? viewBox : nil)
    }

    private func validated(_ width: Double, _ height: Double, source: String) throws -> IntrinsicSize {
        guard width.isFinite, height.isFinite else {
            throw PluginFailure.invalidData("the SVG size is not a finite number")
        }
        guard width > 0, height > 0 else {
            throw PluginFailure.invalidData("the SVG has a width or height of 0 (\(source)): nothing to render")
        }
        // Keeps later Int and UInt32 conversions safe; real limits are checked against the output size.
        guard width <= Double(UInt32.max), height <= Double(UInt32.max) else {
            throw PluginFailure.limitExceeded("the SVG size \(width)x\(height) is out of range")
        }
        return IntrinsicSize(width: width, height: height, source: source)
    }

    /// An absolute length in pixels at 96 dpi. Font units use librsvg's default font size (12 px, so
    /// 1em = 12 px, 1ex = 6 px); only reached when the other side is a percentage.
    static func pixels(_ length: RsvgLength) -> Double {
        switch length.unit {
        case RSVG_UNIT_IN: return length.length * dpi
        case RSVG_UNIT_CM: return length.length * dpi / 2.54
        case RSVG_UNIT_MM: return length.length * dpi / 25.4
        case RSVG_UNIT_PT: return length.length * dpi / 72
        case RSVG_UNIT_PC: return length.length * dpi / 6
        case RSVG_UNIT_EM: return length.length * 12
        case RSVG_UNIT_EX: return length.length * 6
        default: return length.length
        }
    }

    /// "width=100% height=100% viewBox=0 0 480 360" for probe details.
    func rootAttributesDescription() -> String {
        let dims = intrinsicDimensions()
        func text(_ length: RsvgLength) -> String {
            let suffix: String
            switch length.unit {
            case RSVG_UNIT_PERCENT: suffix = "%"
            case RSVG_UNIT_EM: suffix = "em"
            case RSVG_UNIT_EX: suffix = "ex"
            case RSVG_UNIT_IN: suffix = "in"
            case RSVG_UNIT_CM: suffix = "cm"
            case RSVG_UNIT_MM: suffix = "mm"
            case RSVG_UNIT_PT: suffix = "pt"
            case RSVG_UNIT_PC: suffix = "pc"
            default: suffix = ""
            }
            let value = length.unit == RSVG_UNIT_PERCENT ? length.length * 100 : length.length
            return compact(value) + suffix
        }
        var parts = ["width=\(text(dims.width))", "height=\(text(dims.height))"]
        if let box = dims.viewBox {
            parts.append("viewBox=\(compact(box.x)) \(compact(box.y)) \(compact(box.width)) \(compact(box.height))")
        } else {
            parts.append("viewBox=none")
        }
        return parts.joined(separator: " ")
    }
}

/// 480 instead of 480.0, 744.09448819 as is.
private func compact(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
}
