import PluginAPI
import PluginKit

/// Shrink-on-load: the size libwebp's built-in scaler should decode a still image at for a thumbnail request.
///
/// The request goes through `ip_place` (geometry.h), the same computation the host's resampler uses:
/// - fit, fill and one-sided boxes decode at exactly the placement's output size, so the host has nothing left
///   to do (its own placement of that result is the identity);
/// - aspect-fill decodes at the drawn size (`source x scale`, at least the box on each side) and the host crops
///   the centre;
/// - nothing is ever decoded larger than the source: an axis that would grow is decoded at full size and the
///   host upscales it (only with `IP_DECODE_ALLOW_UPSCALE`, or for fill).
/// libwebp's scaler averages the source pixels that fall into each output pixel (an area filter).
enum WebPScaling {
    static func decodeSize(width: Int, height: Int, options: ip_decode_options) -> (width: Int, height: Int) {
        guard options.thumbnail_width > 0 || options.thumbnail_height > 0 else { return (width, height) }
        let allowUpscale: Int32 = options.flags & UInt32(IP_DECODE_ALLOW_UPSCALE) != 0 ? 1 : 0
        let place = ip_place(Double(width), Double(height), options.thumbnail_width, options.thumbnail_height,
                             options.scale_mode, allowUpscale)
        var target: (Int, Int)
        if options.scale_mode == IP_SCALE_ASPECT_FILL, options.thumbnail_width > 0, options.thumbnail_height > 0 {
            target = (max(Int(place.out_width), Int(ip_round_dimension(Double(width) * place.scale_x))),
                      max(Int(place.out_height), Int(ip_round_dimension(Double(height) * place.scale_y))))
        } else {
            target = (Int(place.out_width), Int(place.out_height))
        }
        return (min(width, max(1, target.0)), min(height, max(1, target.1)))
    }
}
