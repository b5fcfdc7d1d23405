import PluginAPI
import PluginKit

/// Turns what cairo drew (ARGB32: premultiplied, one native-endian 0xAARRGGBB word per pixel) into the ABI's
/// RGBA8, in place, row by row, so a large render needs no second buffer.
enum CairoPixels {
    /// Rows converted between two cancellation polls.
    private static let rowsPerPoll = 256

    /// Straight (un-premultiplied) RGBA with rounding, c = (c * 255 + a / 2) / a: a half-transparent white edge
    /// stays white (255, 255, 255, 128) instead of turning grey, so later compositing shows no dark fringes.
    static func convertToStraightRGBA(_ image: ip_image, call: OpaquePointer?) throws {
        try forEachPixel(image, call: call) { word in
            let a = word >> 24
            guard a != 0 else { return (0, 0, 0, 0) }
            var r = (word >> 16) & 0xFF, g = (word >> 8) & 0xFF, b = word & 0xFF
            if a != 255 {
                r = min((r * 255 + a / 2) / a, 255)
                g = min((g * 255 + a / 2) / a, 255)
                b = min((b * 255 + a / 2) / a, 255)
            }
            return (r, g, b, a)
        }
    }

    /// Template rendering: every pixel becomes the tint colour, with alpha = drawn alpha x tint alpha / 255
    /// (rounded), in straight alpha. `tint` is 0xRRGGBBAA, non-premultiplied.
    static func convertToTemplate(_ image: ip_image, tint: UInt32, call: OpaquePointer?) throws {
        let tr = (tint >> 24) & 0xFF, tg = (tint >> 16) & 0xFF, tb = (tint >> 8) & 0xFF, ta = tint & 0xFF
        try forEachPixel(image, call: call) { word in
            let a = ((word >> 24) * ta + 127) / 255
            return a == 0 ? (0, 0, 0, 0) : (tr, tg, tb, a)
        }
    }

    private static func forEachPixel(
        _ image: ip_image, call: OpaquePointer?, _ transform: (UInt32) -> (UInt32, UInt32, UInt32, UInt32)
    ) throws {
        guard let pixels = image.pixels else { throw PluginFailure.internalError("image without pixels") }
        let width = Int(image.width), stride = Int(image.stride)
        for y in 0..<Int(image.height) {
            if y % rowsPerPoll == 0 { try Host.checkCancellation(call) }
            let row = UnsafeMutableRawPointer(pixels + y * stride)
            for x in 0..<width {
                let (r, g, b, a) = transform(row.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self))
                row.storeBytes(of: UInt8(truncatingIfNeeded: r), toByteOffset: x * 4, as: UInt8.self)
                row.storeBytes(of: UInt8(truncatingIfNeeded: g), toByteOffset: x * 4 + 1, as: UInt8.self)
                row.storeBytes(of: UInt8(truncatingIfNeeded: b), toByteOffset: x * 4 + 2, as: UInt8.self)
                row.storeBytes(of: UInt8(truncatingIfNeeded: a), toByteOffset: x * 4 + 3, as: UInt8.self)
            }
        }
    }
}
