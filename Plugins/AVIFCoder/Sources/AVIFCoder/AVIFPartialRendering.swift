import CAVIF
import PluginAPI
import PluginKit

/// Draws a partly decoded frame (the top rows of a grid image whose other cells have not arrived) as a preview.
///
/// The preview has the final image's size, format and orientation, so a viewer can show it in the final image's
/// place: the decoded rows go through the same clap/irot/imir as a full decode (AVIFGeometry), and every output pixel
/// whose source row is not decoded yet is transparent black (0, 0, 0, 0). Its alpha mode is therefore STRAIGHT
/// (PREMULTIPLIED for a premultiplied file) even when the finished image has no alpha.
///
/// Only the decoded rows are read: libavif leaves the planes below them uninitialised, so the colour conversion
/// runs on a view of rows 0..<rows (an offset of 0 suits every chroma subsampling) into a host scratch buffer,
/// which is then copied through the pixel map.
enum AVIFPartialRendering {
    /// The preview, or nil when none of the decoded rows lies inside the clean aperture yet.
    static func render(
        _ image: UnsafeMutablePointer<avifImage>, rows: Int, geometry: AVIFGeometry, sixteenBit: Bool,
        view: DecodeRequestView, call: OpaquePointer?
    ) throws -> ip_image? {
        let decodedRows = min(rows, geometry.codedHeight)
        let crop = geometry.crop
        // Rows of the crop that are decoded: 0..<visible in crop coordinates.
        let visible = min(crop.height, decodedRows - crop.y)
        guard visible > 0 else { return nil }
        try view.checkLimits(width: geometry.codedWidth, height: geometry.codedHeight)
        try view.checkLimits(width: geometry.outputWidth, height: geometry.outputHeight)
        let format = sixteenBit ? IP_PIXEL_RGBA16 : IP_PIXEL_RGBA8
        let bytesPerPixel = sixteenBit ? 8 : 4

        guard let top = avifImageCreateEmpty() else { throw PluginFailure(IP_STATUS_NO_MEMORY, "libavif: no image") }
        defer { avifImageDestroy(top) }
        var rect = avifCropRect(x: 0, y: 0, width: UInt32(geometry.codedWidth), height: UInt32(decodedRows))
        let viewResult = avifImageSetViewRect(top, image, &rect)
        guard viewResult == AVIF_RESULT_OK else {
            throw PluginFailure.internalError(
                "libavif refused a view of the top \(decodedRows) rows: " + String(cString: avifResultToString(viewResult)))
        }
        let scratch = try Host.allocatePixels(call, width: geometry.codedWidth, height: decodedRows, format: format)
        defer { Host.freePixels(call, scratch.pixels) }
        try AVIFRendering.convert(top, into: scratch, sixteenBit: sixteenBit)
        try Host.checkCancellation(call)

        // Host buffers start zeroed: pixels not written below stay transparent black.
        var output = try Host.allocatePixels(
            call, width: geometry.outputWidth, height: geometry.outputHeight, format: format)
        try copyDecoded(from: scratch, crop: crop, visibleRows: visible, through: geometry.map, into: output,
                        bytesPerPixel: bytesPerPixel, call: call)
        output.alpha_mode = image.pointee.alphaPremultiplied != AVIF_FALSE ? IP_ALPHA_PREMULTIPLIED : IP_ALPHA_STRAIGHT
        return output
    }

    /// output(x, y) = source(map(x, y) + crop origin) for every output pixel whose source row (in crop
    /// coordinates) is below `visibleRows`; the map's coefficients are those AVIFRendering uses.
    private static func copyDecoded(
        from source: ip_image, crop: AVIFGeometry.Rect, visibleRows: Int, through map: PixelMap, into output: ip_image,
        bytesPerPixel: Int, call: OpaquePointer?
    ) throws {
        guard let from = source.pixels, let to = output.pixels else { return }
        let input = UnsafeRawPointer(from)
        let sourceStride = Int(source.stride), outputStride = Int(output.stride)
        for y in 0..<Int(output.height) {
            if y % AVIFRendering.rowsPerPoll == 0 { try Host.checkCancellation(call) }
            let row = UnsafeMutableRawPointer(to + y * outputStride)
            for x in 0..<Int(output.width) {
                let cropY = map.yx * x + map.yy * y + map.y0
                guard cropY < visibleRows else { continue }
                let cropX = map.xx * x + map.xy * y + map.x0
                let at = (cropY + crop.y) * sourceStride + (cropX + crop.x) * bytesPerPixel
                if bytesPerPixel == 8 {
                    row.storeBytes(of: input.loadUnaligned(fromByteOffset: at, as: UInt64.self),
                                   toByteOffset: x * 8, as: UInt64.self)
                } else {
                    row.storeBytes(of: input.loadUnaligned(fromByteOffset: at, as: UInt32.self),
                                   toByteOffset: x * 4, as: UInt32.self)
                }
            }
        }
    }
}
