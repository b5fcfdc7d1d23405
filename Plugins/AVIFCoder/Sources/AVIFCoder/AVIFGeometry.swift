import CAVIF

/// How the displayed image is made from the coded one: the `clap` crop, then the `irot` rotation, then the `imir`
/// mirror, in that order (HEIF, ISO/IEC 23008-12 6.5.x: transformative properties apply in the order listed,
/// and AVIF requires clap, irot, imir). libavif 0.11 reports these properties but applies none of them.
struct AVIFGeometry: Equatable {
    struct Rect: Equatable {
        var x: Int, y: Int, width: Int, height: Int
    }

    let codedWidth: Int
    let codedHeight: Int
    /// The clean aperture inside the coded image (the whole image when there is no usable clap).
    let crop: Rect
    /// irot: anticlockwise quarter turns, 0...3.
    let rotation: Int
    /// imir after rotation: 0 exchanges top and bottom, 1 exchanges left and right; nil = none.
    let mirror: Int?
    /// A clap box that does not describe a pixel rectangle inside the image (non-integral or outside): ignored.
    let ignoredClap: Bool

    /// Reads the transforms of `image`; with `applyOrientation` false, irot and imir are ignored (clap is a crop,
    /// not an orientation, and is always applied).
    init(_ image: avifImage, applyOrientation: Bool) {
        codedWidth = Int(image.width)
        codedHeight = Int(image.height)
        let flags = image.transformFlags
        var ignored = false
        var rect = Rect(x: 0, y: 0, width: codedWidth, height: codedHeight)
        if flags & AVIF_TRANSFORM_CLAP.rawValue != 0 {
            if let clap = Self.cleanAperture(image.clap, width: codedWidth, height: codedHeight) {
                rect = clap
            } else {
                ignored = true
            }
        }
        crop = rect
        ignoredClap = ignored
        rotation = applyOrientation && flags & AVIF_TRANSFORM_IROT.rawValue != 0 ? Int(image.irot.angle & 3) : 0
        mirror = applyOrientation && flags & AVIF_TRANSFORM_IMIR.rawValue != 0 ? Int(image.imir.mode & 1) : nil
    }

    /// Display size: the crop, turned on its side by an odd number of quarter turns.
    var outputWidth: Int { rotation % 2 == 1 ? crop.height : crop.width }
    var outputHeight: Int { rotation % 2 == 1 ? crop.width : crop.height }

    var hasCrop: Bool { crop != Rect(x: 0, y: 0, width: codedWidth, height: codedHeight) }

    /// Where each output pixel comes from, in crop coordinates.
    var map: PixelMap {
        let w = crop.width, h = crop.height
        let rotate: PixelMap
        switch rotation {
        case 1: rotate = PixelMap(xx: 0, xy: -1, x0: w - 1, yx: 1, yy: 0, y0: 0)  // anticlockwise 90
        case 2: rotate = PixelMap(xx: -1, xy: 0, x0: w - 1, yx: 0, yy: -1, y0: h - 1)
        case 3: rotate = PixelMap(xx: 0, xy: 1, x0: 0, yx: -1, yy: 0, y0: h - 1)  // anticlockwise 270
        default: rotate = .identity
        }
        switch mirror {
        case 0: return rotate.after(PixelMap(xx: 1, xy: 0, x0: 0, yx: 0, yy: -1, y0: outputHeight - 1))
        case 1: return rotate.after(PixelMap(xx: -1, xy: 0, x0: outputWidth - 1, yx: 0, yy: 1, y0: 0))
        default: return rotate
        }
    }

    /// "clap 385x330+272+39, irot 3, imir 1" or "" when nothing applies.
    var summary: String {
        var parts: [String] = []
        if hasCrop { parts.append("clap \(crop.width)x\(crop.height)+\(crop.x)+\(crop.y)") }
        if ignoredClap { parts.append("clap ignored (not a pixel rectangle inside the image)") }
        if rotation != 0 { parts.append("irot \(rotation) (\(rotation * 90)° anticlockwise)") }
        if let mirror { parts.append("imir \(mirror) (\(mirror == 0 ? "top-bottom" : "left-right"))") }
        return parts.joined(separator: ", ")
    }

    /// The crop rectangle of a clap box (ISO/IEC 14496-12 12.1.4): the aperture of width x height is centred at
    /// (imageWidth - 1)/2 + horizOff, (imageHeight - 1)/2 + vertOff. Nil unless it is an integral rectangle inside
    /// the image. Unlike libavif's avifCropRectConvertCleanApertureBox, odd offsets in subsampled images are allowed.
    static func cleanAperture(_ clap: avifCleanApertureBox, width: Int, height: Int) -> Rect? {
        guard let (x, w) = span(clap.widthN, clap.widthD, clap.horizOffN, clap.horizOffD, size: width),
              let (y, h) = span(clap.heightN, clap.heightD, clap.vertOffN, clap.vertOffD, size: height)
        else { return nil }
        return Rect(x: x, y: y, width: w, height: h)
    }

    /// Start and length along one axis: start = off + (size - length) / 2, which must be a whole number.
    private static func span(_ lengthN: UInt32, _ lengthD: UInt32, _ offN: UInt32, _ offD: UInt32, size: Int)
        -> (Int, Int)?
    {
        guard lengthD != 0, offD != 0, lengthN % lengthD == 0 else { return nil }
        let length = Int(lengthN / lengthD)
        // The offset is a signed fraction (int32 numerator, uint32 denominator).
        let numerator = 2 * Int64(Int32(bitPattern: offN)) + Int64(size - length) * Int64(offD)
        let denominator = 2 * Int64(offD)
        guard numerator % denominator == 0 else { return nil }
        let start = Int(numerator / denominator)
        guard length > 0, start >= 0, start + length <= size else { return nil }
        return (start, length)
    }
}

/// An affine map of pixel coordinates with integer coefficients: (x, y) -> (xx*x + xy*y + x0, yx*x + yy*y + y0).
struct PixelMap: Equatable {
    var xx: Int, xy: Int, x0: Int
    var yx: Int, yy: Int, y0: Int

    static let identity = PixelMap(xx: 1, xy: 0, x0: 0, yx: 0, yy: 1, y0: 0)

    /// self ∘ inner: first `inner`, then `self`.
    func after(_ inner: PixelMap) -> PixelMap {
        PixelMap(
            xx: xx * inner.xx + xy * inner.yx, xy: xx * inner.xy + xy * inner.yy, x0: xx * inner.x0 + xy * inner.y0 + x0,
            yx: yx * inner.xx + yy * inner.yx, yy: yx * inner.xy + yy * inner.yy, y0: yx * inner.x0 + yy * inner.y0 + y0)
    }

    /// Only flips along the axes (no quarter turn): can be done in place.
    var isAxisAligned: Bool { xy == 0 && yx == 0 }
}
