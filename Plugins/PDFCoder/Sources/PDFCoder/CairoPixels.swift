import PluginAPI
import PluginKit

/// Turns cairo's ARGB32 (premultiplied, one native-endian UInt32 per pixel) into the ABI's RGBA8, in place.
enum CairoPixels {
    enum Output: Equatable {
        /// Rendered on white: every alpha is 255, so premultiplied and straight agree.
        case opaque
        /// Rendered on transparent: kept premultiplied, which is exact (un-premultiplying would round).
        case transparent
        /// Template: the tint colour everywhere, alpha = rendered coverage x tint alpha (straight).
        case template(rgba: UInt32)

        var alphaMode: ip_alpha_mode {
            switch self {
            case .opaque: return ip_alpha_mode(IP_ALPHA_NONE)
            case .transparent: return ip_alpha_mode(IP_ALPHA_PREMULTIPLIED)
            case .template: return ip_alpha_mode(IP_ALPHA_STRAIGHT)
            }
        }

        /// The pixel rewrite: byte order only, or the tint colour over the coverage (kept at alpha 0 too).
        var conversion: PremultipliedARGB32.Conversion {
            switch self {
            case .opaque, .transparent: return .premultipliedRGBA
            case .template(let rgba): return .template(tint: rgba, clearTransparent: false)
            }
        }
    }

    /// Rewrites every row of `image`, polling cancellation every 64 rows.
    static func convert(_ image: ip_image, to output: Output, call: OpaquePointer?) throws {
        guard let base = image.pixels else { return }
        try PremultipliedARGB32.convert(
            base, width: Int(image.width), height: Int(image.height), stride: Int(image.stride),
            to: output.conversion, call: call, rowsPerCancellationPoll: 64)
    }
}
