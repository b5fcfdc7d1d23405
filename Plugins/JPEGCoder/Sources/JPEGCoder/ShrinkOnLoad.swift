import JPEGCodec
import PluginAPI
import PluginKit

/// Shrink-on-load: the smallest libjpeg DCT scale (n/8, n = 1...8) whose output still covers what the host will
/// draw for the request, so that the host's high-quality resampler only ever reduces.
///
/// Both sizes go through the host's placement (`Host.place`, the one fit/fill/aspect-fill computation), once for the full displayed size and
/// once for each candidate: a candidate is taken only if it is at least as large as the drawn source in both
/// dimensions *and* the host would compute the same output size from it. So the result has exactly the size a full
/// decode would give, whatever the mode, the rounding or `IP_DECODE_ALLOW_UPSCALE`.
enum ShrinkOnLoad {
    static let fullScale: Int32 = 8

    static func scale(for header: jpegc_info, orientation: Int32, options: DecodeOptionsCopy) -> Int32 {
        guard options.thumbnail_width > 0 || options.thumbnail_height > 0 else { return fullScale }
        let transposed = jpegc_info.transposes(orientation)
        func place(_ width: UInt32, _ height: UInt32) -> ip_placement {
            let (w, h) = transposed ? (height, width) : (width, height)
            return Host.place(sourceWidth: Double(w), sourceHeight: Double(h), options: options)
        }
        let full = place(header.width, header.height)
        let (fullWidth, fullHeight) = header.displayedSize(orientation: orientation)
        // The size at which the host draws the source (larger than the output for aspect-fill).
        let drawnWidth = (Double(fullWidth) * full.scale_x - 1e-6).rounded(.up)
        let drawnHeight = (Double(fullHeight) * full.scale_y - 1e-6).rounded(.up)
        for numerator in Int32(1)..<fullScale {
            let width = jpegc_scaled_dimension(header.width, numerator)
            let height = jpegc_scaled_dimension(header.height, numerator)
            let (shownWidth, shownHeight) = transposed ? (height, width) : (width, height)
            guard Double(shownWidth) >= drawnWidth, Double(shownHeight) >= drawnHeight else { continue }
            let candidate = place(width, height)
            if candidate.out_width == full.out_width && candidate.out_height == full.out_height { return numerator }
        }
        return fullScale
    }
}
