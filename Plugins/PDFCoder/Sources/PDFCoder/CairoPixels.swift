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
    }

    /// Rewrites every row of `image`, polling cancellation every 64 rows.
    static func convert(_ image: ip_image, to output: Output, call: OpaquePointer?) throws {
        guard let base = image.pixels else { return }
        let width = Int(image.width), stride = Int(image.stride)
        for y in 0..<Int(image.height) {
            if y & 63 == 0 { try Host.checkCancellation(call) }
            let row = base + y * stride
            switch output {
            case .opaque, .transparent: swizzleRow(row, width: width)
            case .template(let rgba): tintRow(row, width: width, rgba: rgba)
            }
        }
    }

    /// 0xAARRGGBB words to R, G, B, A bytes.
    private static func swizzleRow(_ row: UnsafeMutablePointer<UInt8>, width: Int) {
        let raw = UnsafeMutableRawPointer(row)
        for x in 0..<width {
            let argb = raw.load(fromByteOffset: x * 4, as: UInt32.self)
            let pixel = row + x * 4
            pixel[0] = UInt8(truncatingIfNeeded: argb >> 16)
            pixel[1] = UInt8(truncatingIfNeeded: argb >> 8)
            pixel[2] = UInt8(truncatingIfNeeded: argb)
            pixel[3] = UInt8(truncatingIfNeeded: argb >> 24)
        }
    }

    /// Keeps only coverage: tint colour with alpha = coverage x tint alpha / 255 (rounded).
    private static func tintRow(_ row: UnsafeMutablePointer<UInt8>, width: Int, rgba: UInt32) {
        let red = UInt8(truncatingIfNeeded: rgba >> 24), green = UInt8(truncatingIfNeeded: rgba >> 16)
        let blue = UInt8(truncatingIfNeeded: rgba >> 8), tintAlpha = UInt32(rgba & 0xFF)
        let raw = UnsafeMutableRawPointer(row)
        for x in 0..<width {
            let coverage = raw.load(fromByteOffset: x * 4, as: UInt32.self) >> 24
            let pixel = row + x * 4
            pixel[0] = red
            pixel[1] = green
            pixel[2] = blue
            pixel[3] = UInt8((coverage * tintAlpha + 127) / 255)
        }
    }
}
