import PluginAPI
import PluginKit

/// One frame the host lends, as the straight-alpha samples libjxl takes: 8-bit (through the kit's conversion) or
/// 16-bit (read here, since the kit converts to 8-bit only), tightly packed, RGB or RGBA.
struct JXLPixels {
    /// RGBA, 4 samples a pixel, straight alpha.
    private let rgba8: [UInt8]
    private let rgba16: [UInt16]
    let sixteenBit: Bool
    let hasTransparency: Bool

    init(image: ip_image, sixteenBit: Bool) throws {
        self.sixteenBit = sixteenBit
        if !sixteenBit {
            let samples = try PixelConversion.straightRGBA8(image)
            rgba8 = samples
            rgba16 = []
            hasTransparency = Swift.stride(from: 3, to: samples.count, by: 4).contains { samples[$0] != 255 }
            return
        }
        let (source, sourceSixteen) = try EncodeInput.rgbaLayout(image, encoder: "JPEG XL")
        let width = Int(image.width), height = Int(image.height)
        let opaque = image.alpha_mode == IP_ALPHA_NONE, premultiplied = image.alpha_mode == IP_ALPHA_PREMULTIPLIED
        var samples = [UInt16](repeating: 0, count: width * height * 4)
        var transparent = false
        for y in 0..<height {
            let row = UnsafeRawPointer(source + y * Int(image.stride))
            for x in 0..<width {
                var p = (0..<4).map { c -> UInt32 in
                    sourceSixteen ? UInt32(row.loadUnaligned(fromByteOffset: x * 8 + c * 2, as: UInt16.self))
                        : UInt32(row.load(fromByteOffset: x * 4 + c, as: UInt8.self)) * 257
                }
                if opaque { p[3] = 65535 }
                if premultiplied, p[3] < 65535 {
                    for c in 0..<3 { p[c] = p[3] == 0 ? 0 : min(65535, (p[c] * 65535 + p[3] / 2) / p[3]) }
                }
                if p[3] != 65535 { transparent = true }
                for c in 0..<4 { samples[(y * width + x) * 4 + c] = UInt16(p[c]) }
            }
        }
        rgba8 = []
        rgba16 = samples
        hasTransparency = transparent
    }

    /// The samples as bytes, with or without the alpha channel.
    func packed(withAlpha alpha: Bool) -> [UInt8] {
        if sixteenBit {
            let channels = alpha ? rgba16 : rgba16.enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
            return channels.withUnsafeBytes { Array($0) }
        }
        return alpha ? rgba8 : rgba8.enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
    }
}
