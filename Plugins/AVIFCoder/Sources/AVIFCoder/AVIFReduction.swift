import BoxShrink
import CAVIF
import PluginAPI
import PluginKit

/// Shrink-on-load for a thumbnail: the decoded YUV planes are averaged in k x k blocks before the colour conversion,
/// so only the reduced image is converted to RGB and handed to the host.
///
/// Why before the conversion: for a 12 MP photo the YUV to RGB conversion, the 48 MB RGBA buffer it fills (12,000
/// freshly faulted pages) and the host's own block averaging of that buffer are most of what a thumbnail costs
/// beyond dav1d's decode. The conversion is affine per pixel, so the average of converted blocks is the conversion
/// of the averaged block, up to rounding and the clamping of out-of-range values. The blocks are BoxShrink's, which
/// are the host resampler's own; k comes from StandIn, the rule every shrink-on-load coder follows, so the host's
/// Lanczos pass that finishes the thumbnail sees at least twice the drawn size.
enum AVIFReduction {
    /// A new image of the planes of `decoded` reduced for the request's thumbnail, or nil when the full image is
    /// to be converted: no thumbnail asked, nothing smaller may stand in, a crop (whose offsets need not fall on
    /// block edges), or an alpha plane (averaging colour unweighted by a straight alpha would bleed the colour of
    /// transparent pixels into their neighbours; the host weights it). The caller destroys the result.
    static func reduced(_ decoded: UnsafeMutablePointer<avifImage>, geometry: AVIFGeometry, view: DecodeRequestView) throws
        -> UnsafeMutablePointer<avifImage>?
    {
        let source = decoded.pointee
        guard !geometry.hasCrop, source.alphaPlane == nil, source.yuvPlanes.0 != nil,
              let standIn = StandIn(full: geometry.outputWidth, geometry.outputHeight, request: view)
        else { return nil }
        var format = avifPixelFormatInfo()
        avifGetPixelFormatInfo(source.yuvFormat, &format)
        let subsampled = format.monochrome == AVIF_FALSE && (format.chromaShiftX > 0 || format.chromaShiftY > 0)
        // A subsampled source is reduced to 4:4:4, its chroma in blocks half as wide (or tall) as the luma's, so the
        // thumbnail's chroma is not subsampled twice (once in the file, once more in the reduced image; measured on a
        // 4:2:0 photo: 39.8 dB against the full decode's thumbnail when the reduced image stayed 4:2:0). Those
        // half blocks need an even k.
        let factor = standIn.blockFactor(multipleOf: subsampled ? 2 : 1)
        guard factor > 1 else { return nil }
        let k = UInt32(factor)
        let reducedFormat = subsampled ? AVIF_PIXEL_FORMAT_YUV444 : source.yuvFormat
        guard let target = avifImageCreate(bxs_reduced(source.width, k), bxs_reduced(source.height, k), source.depth, reducedFormat) else {
            throw PluginFailure(IP_STATUS_NO_MEMORY, "no memory for a reduced \(source.width)x\(source.height) image")
        }
        var handedOver = false
        defer { if !handedOver { avifImageDestroy(target) } }
        target.pointee.yuvRange = source.yuvRange
        target.pointee.colorPrimaries = source.colorPrimaries
        target.pointee.transferCharacteristics = source.transferCharacteristics
        target.pointee.matrixCoefficients = source.matrixCoefficients
        // Orientation stays (it applies to the reduced image alike); there is no crop on this path.
        target.pointee.transformFlags = source.transformFlags & ~AVIF_TRANSFORM_CLAP.rawValue
        target.pointee.irot = source.irot
        target.pointee.imir = source.imir
        guard avifImageAllocatePlanes(target, avifPlanesFlags(AVIF_PLANES_YUV.rawValue)) == AVIF_RESULT_OK else {
            throw PluginFailure(IP_STATUS_NO_MEMORY, "no memory for a reduced \(source.width)x\(source.height) image")
        }
        let sixteen: Int32 = source.depth > 8 ? 1 : 0
        let reduced = target.pointee
        for plane in 0..<(format.monochrome != AVIF_FALSE ? 1 : 3) {
            // Chroma planes are subsampled from the luma size rounding up (libavif's own rule); every reduced plane
            // has the reduced luma's size.
            let shiftX = plane == 0 ? 0 : UInt32(format.chromaShiftX), shiftY = plane == 0 ? 0 : UInt32(format.chromaShiftY)
            var from = bxs_plane(
                samples: Self.plane(plane, of: source), width: (source.width + (1 << shiftX) - 1) >> shiftX,
                height: (source.height + (1 << shiftY) - 1) >> shiftY, stride: Int(Self.rowBytes(plane, of: source)))
            var to = bxs_plane(
                samples: Self.plane(plane, of: reduced), width: reduced.width, height: reduced.height,
                stride: Int(Self.rowBytes(plane, of: reduced)))
            guard bxs_reduce_plane(&from, &to, k >> shiftX, k >> shiftY, sixteen) == 0 else {
                throw PluginFailure.internalError(
                    "cannot reduce plane \(plane) (\(from.width)x\(from.height) to \(to.width)x\(to.height), blocks of \(k))")
            }
            try Host.checkCancellation(view.call)
        }
        handedOver = true
        return target
    }

    private static func plane(_ index: Int, of image: avifImage) -> UnsafeMutablePointer<UInt8>? {
        switch index {
        case 0: image.yuvPlanes.0
        case 1: image.yuvPlanes.1
        default: image.yuvPlanes.2
        }
    }

    private static func rowBytes(_ index: Int, of image: avifImage) -> UInt32 {
        switch index {
        case 0: image.yuvRowBytes.0
        case 1: image.yuvRowBytes.1
        default: image.yuvRowBytes.2
        }
    }
}
