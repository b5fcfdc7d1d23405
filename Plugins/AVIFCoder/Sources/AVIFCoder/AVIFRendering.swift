import CAVIF
import PluginAPI
import PluginKit

/// Colour-converts a decoded frame (libavif's YUV planes) into a host pixel buffer, with clap/irot/imir applied.
///
/// The common case (no transforms, or a crop that libavif can take as a view of the planes) converts straight into
/// the buffer from Host.allocatePixels with rgb.rowBytes = the host stride: no copy. Mirrors and 180° turns are
/// then done in place. Only quarter turns, and crops at offsets the chroma subsampling cannot express as a plane
/// view (an odd offset in 4:2:0), convert into a host-allocated scratch buffer and copy through the pixel map.
enum AVIFRendering {
    /// Rows between cancellation checks in the copy loops.
    static let rowsPerPoll = 64

    static func render(
        _ image: UnsafeMutablePointer<avifImage>, geometry: AVIFGeometry, sixteenBit: Bool,
        view: DecodeRequestView, call: OpaquePointer?
    ) throws -> ip_image {
        let format = sixteenBit ? IP_PIXEL_RGBA16 : IP_PIXEL_RGBA8
        let bytesPerPixel = sixteenBit ? 8 : 4
        // Limits before any allocation: the full coded frame is an intermediate when the crop cannot be a view.
        try view.checkLimits(width: geometry.codedWidth, height: geometry.codedHeight)
        try view.checkLimits(width: geometry.outputWidth, height: geometry.outputHeight)

        // A crop as a view of the planes (shallow; libavif refuses offsets that split chroma samples).
        var source = image
        var cropInSource = geometry.crop
        var cropView: UnsafeMutablePointer<avifImage>?
        defer { if let cropView { avifImageDestroy(cropView) } }
        if geometry.hasCrop, let empty = avifImageCreateEmpty() {
            cropView = empty
            var rect = avifCropRect(
                x: UInt32(geometry.crop.x), y: UInt32(geometry.crop.y),
                width: UInt32(geometry.crop.width), height: UInt32(geometry.crop.height))
            if avifImageSetViewRect(empty, image, &rect) == AVIF_RESULT_OK {
                source = empty
                cropInSource = .init(x: 0, y: 0, width: geometry.crop.width, height: geometry.crop.height)
            }
        }
        let sourceWidth = Int(source.pointee.width), sourceHeight = Int(source.pointee.height)
        let map = geometry.map
        let cropIsWhole = cropInSource == .init(x: 0, y: 0, width: sourceWidth, height: sourceHeight)

        var output: ip_image
        if cropIsWhole && map.isAxisAligned {
            output = try Host.allocatePixels(call, width: geometry.outputWidth, height: geometry.outputHeight, format: format)
            try convert(source, into: output, sixteenBit: sixteenBit)
            try Host.checkCancellation(call)
            flipInPlace(output, horizontally: map.xx < 0, vertically: map.yy < 0, bytesPerPixel: bytesPerPixel)
        } else {
            let scratch = try Host.allocatePixels(call, width: sourceWidth, height: sourceHeight, format: format)
            defer { Host.freePixels(call, scratch.pixels) }
            try convert(source, into: scratch, sixteenBit: sixteenBit)
            try Host.checkCancellation(call)
            output = try Host.allocatePixels(call, width: geometry.outputWidth, height: geometry.outputHeight, format: format)
            try copy(from: scratch, offsetX: cropInSource.x, offsetY: cropInSource.y, through: map, into: output,
                     bytesPerPixel: bytesPerPixel, call: call)
        }
        let hasAlpha = source.pointee.alphaPlane != nil
        output.alpha_mode = !hasAlpha ? IP_ALPHA_NONE
            : source.pointee.alphaPremultiplied != AVIF_FALSE ? IP_ALPHA_PREMULTIPLIED : IP_ALPHA_STRAIGHT
        return output
    }

    /// avifImageYUVToRGB straight into `target`. A premultiplied file stays premultiplied (reported as such):
    /// un-premultiplying would lose precision for nothing, since the host resamples in premultiplied alpha anyway.
    ///
    /// libyuv (libavif's fast path) is used except from a 10/12-bit source to 8-bit output, where its result is off
    /// by up to 3 levels (measured on the fox 10-bit file against the exact conversion); libavif's own conversion
    /// is exact there and costs about 10 ms per megapixel. For 8-bit sources libyuv's error is at most 2 and it is
    /// what avifdec produces, so it stays.
    static func convert(_ image: UnsafeMutablePointer<avifImage>, into target: ip_image, sixteenBit: Bool) throws {
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.depth = sixteenBit ? 16 : 8
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.alphaPremultiplied = image.pointee.alphaPremultiplied
        rgb.avoidLibYUV = image.pointee.depth > 8 && !sixteenBit ? AVIF_TRUE : AVIF_FALSE
        rgb.pixels = target.pixels
        rgb.rowBytes = target.stride
        let result = avifImageYUVToRGB(image, &rgb)
        guard result == AVIF_RESULT_OK else {
            throw PluginFailure.internalError(
                "libavif could not convert \(image.pointee.width)x\(image.pointee.height) YUV to RGB: "
                    + String(cString: avifResultToString(result)))
        }
    }

    /// Mirrors rows and/or columns of `image` in place (imir, or irot by 180°).
    private static func flipInPlace(_ image: ip_image, horizontally: Bool, vertically: Bool, bytesPerPixel: Int) {
        guard horizontally || vertically, let pixels = image.pixels else { return }
        let width = Int(image.width), height = Int(image.height), stride = Int(image.stride)
        let rowBytes = width * bytesPerPixel
        if vertically {
            for top in 0..<height / 2 {
                let a = pixels + top * stride, b = pixels + (height - 1 - top) * stride
                for i in 0..<rowBytes { swap(&a[i], &b[i]) }
            }
        }
        if horizontally {
            for y in 0..<height {
                let row = UnsafeMutableRawPointer(pixels + y * stride)
                for x in 0..<width / 2 {
                    swapPixel(row, x * bytesPerPixel, (width - 1 - x) * bytesPerPixel, bytesPerPixel)
                }
            }
        }
    }

    private static func swapPixel(_ row: UnsafeMutableRawPointer, _ a: Int, _ b: Int, _ bytesPerPixel: Int) {
        if bytesPerPixel == 8 {
            let pa = row.loadUnaligned(fromByteOffset: a, as: UInt64.self)
            row.storeBytes(of: row.loadUnaligned(fromByteOffset: b, as: UInt64.self), toByteOffset: a, as: UInt64.self)
            row.storeBytes(of: pa, toByteOffset: b, as: UInt64.self)
        } else {
            let pa = row.loadUnaligned(fromByteOffset: a, as: UInt32.self)
            row.storeBytes(of: row.loadUnaligned(fromByteOffset: b, as: UInt32.self), toByteOffset: a, as: UInt32.self)
            row.storeBytes(of: pa, toByteOffset: b, as: UInt32.self)
        }
    }

    /// output(x, y) = source(map(x, y) + offset), for every output pixel.
    private static func copy(
        from source: ip_image, offsetX: Int, offsetY: Int, through map: PixelMap, into output: ip_image,
        bytesPerPixel: Int, call: OpaquePointer?
    ) throws {
        guard let from = source.pixels, let to = output.pixels else { return }
        let sourceStride = Int(source.stride), outputStride = Int(output.stride)
        // Byte steps in the source for one step right and one step down in the output.
        let stepX = map.xx * bytesPerPixel + map.yx * sourceStride
        let stepY = map.xy * bytesPerPixel + map.yy * sourceStride
        let origin = (map.x0 + offsetX) * bytesPerPixel + (map.y0 + offsetY) * sourceStride
        let input = UnsafeRawPointer(from)
        for y in 0..<Int(output.height) {
            if y % rowsPerPoll == 0 { try Host.checkCancellation(call) }
            let row = UnsafeMutableRawPointer(to + y * outputStride)
            var at = origin + y * stepY
            if bytesPerPixel == 8 {
                for x in 0..<Int(output.width) {
                    row.storeBytes(of: input.loadUnaligned(fromByteOffset: at, as: UInt64.self), toByteOffset: x * 8, as: UInt64.self)
                    at += stepX
                }
            } else {
                for x in 0..<Int(output.width) {
                    row.storeBytes(of: input.loadUnaligned(fromByteOffset: at, as: UInt32.self), toByteOffset: x * 4, as: UInt32.self)
                    at += stepX
                }
            }
        }
    }
}
