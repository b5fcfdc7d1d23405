import PluginAPI
import PluginKit

/// Shrink-on-load: the size libwebp's built-in scaler should decode a still image at for a thumbnail request.
///
/// The request goes through the host's placement (`Host.place`, geometry.h), the same computation the host's resampler uses:
/// - fit, fill and one-sided boxes decode at exactly the placement's output size, so the host has nothing left
///   to do (its own placement of that result is the identity);
/// - aspect-fill decodes at the drawn size (`source x scale`, at least the box on each side) and the host crops
///   the centre;
/// - nothing is ever decoded larger than the source: an axis that would grow is decoded at full size and the
///   host upscales it (only with `IP_DECODE_ALLOW_UPSCALE`, or for fill).
/// libwebp's scaler averages the source pixels that fall into each output pixel (an area filter).
enum WebPScaling {
    static func decodeSize(width: Int, height: Int, options: DecodeOptionsCopy) -> (width: Int, height: Int) {
        guard options.thumbnail_width > 0 || options.thumbnail_height > 0 else { return (width, height) }
        let place = Host.place(sourceWidth: Double(width), sourceHeight: Double(height), options: options)
        var target: (Int, Int)
        if options.scale_mode == IP_SCALE_ASPECT_FILL, options.thumbnail_width > 0, options.thumbnail_height > 0 {
            target = (max(Int(place.out_width), Int(roundDimension(Double(width) * place.scale_x))),
                      max(Int(place.out_height), Int(roundDimension(Double(height) * place.scale_y))))
        } else {
            target = (Int(place.out_width), Int(place.out_height))
        }
        return (min(width, max(1, target.0)), min(height, max(1, target.1)))
    }
}
