import PluginAPI

/// In-place conversion of premultiplied, native-endian 0xAARRGGBB words into the ABI's R, G, B, A bytes.
///
/// That is the layout of cairo's ARGB32 surfaces, which the SVG and PDF coders render into host buffers. Nothing
/// here knows cairo (PluginKit links no image library): the buffer is a raw pointer with a stride, so any
/// renderer that draws this layout can use it. Work is done row by row in place, so a large render needs no
/// second buffer.
public enum PremultipliedARGB32 {
    public enum Conversion: Equatable, Sendable {
        /// Byte order only; the colour stays premultiplied (exact: un-premultiplying would round).
        case premultipliedRGBA
        /// Straight (un-premultiplied) RGBA with rounding, c = min((c * 255 + a / 2) / a, 255); alpha 0 gives
        /// (0, 0, 0, 0). A half-transparent white edge stays white instead of turning grey.
        case straightRGBA
        /// Template rendering: every pixel becomes `tint` (0xRRGGBBAA, straight), with alpha = drawn alpha x tint
        /// alpha / 255 (rounded). With `clearTransparent`, a pixel whose alpha comes out 0 is (0, 0, 0, 0);
        /// without, it keeps the tint colour at alpha 0.
        case template(tint: UInt32, clearTransparent: Bool)
    }

    /// Rewrites `height` rows of `width` pixels, `stride` bytes apart, polling the call's cancellation before
    /// row 0 and every `rowsPerCancellationPoll` rows after it.
    public static func convert(
        _ pixels: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int, to conversion: Conversion,
        call: OpaquePointer?, rowsPerCancellationPoll: Int
    ) throws {
        for y in 0..<height {
            if y % rowsPerCancellationPoll == 0 { try Host.checkCancellation(call) }
            let row = pixels + y * stride
            switch conversion {
            case .premultipliedRGBA: swizzle(row, width: width)
            case .straightRGBA: unpremultiply(row, width: width)
            case .template(let tint, let clearTransparent): paint(row, width: width, tint: tint, clearTransparent: clearTransparent)
            }
        }
    }

    private static func swizzle(_ row: UnsafeMutableRawPointer, width: Int) {
        for x in 0..<width {
            let word = row.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self)
            store(row, x, word >> 16, word >> 8, word, word >> 24)
        }
    }

    private static func unpremultiply(_ row: UnsafeMutableRawPointer, width: Int) {
        for x in 0..<width {
            let word = row.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self)
            let a = word >> 24
            guard a != 0 else {
                store(row, x, 0, 0, 0, 0)
                continue
            }
            var r = (word >> 16) & 0xFF, g = (word >> 8) & 0xFF, b = word & 0xFF
            if a != 255 {
                r = min((r * 255 + a / 2) / a, 255)
                g = min((g * 255 + a / 2) / a, 255)
                b = min((b * 255 + a / 2) / a, 255)
            }
            store(row, x, r, g, b, a)
        }
    }

    private static func paint(_ row: UnsafeMutableRawPointer, width: Int, tint: UInt32, clearTransparent: Bool) {
        let red = (tint >> 24) & 0xFF, green = (tint >> 16) & 0xFF, blue = (tint >> 8) & 0xFF, tintAlpha = tint & 0xFF
        for x in 0..<width {
            let coverage = row.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self) >> 24
            let a = (coverage * tintAlpha + 127) / 255
            if a == 0 && clearTransparent {
                store(row, x, 0, 0, 0, 0)
            } else {
                store(row, x, red, green, blue, a)
            }
        }
    }

    /// Writes pixel `x` as the low bytes of r, g, b, a.
    @inline(__always)
    private static func store(_ row: UnsafeMutableRawPointer, _ x: Int, _ r: UInt32, _ g: UInt32, _ b: UInt32, _ a: UInt32) {
        row.storeBytes(of: UInt8(truncatingIfNeeded: r), toByteOffset: x * 4, as: UInt8.self)
        row.storeBytes(of: UInt8(truncatingIfNeeded: g), toByteOffset: x * 4 + 1, as: UInt8.self)
        row.storeBytes(of: UInt8(truncatingIfNeeded: b), toByteOffset: x * 4 + 2, as: UInt8.self)
        row.storeBytes(of: UInt8(truncatingIfNeeded: a), toByteOffset: x * 4 + 3, as: UInt8.self)
    }
}
