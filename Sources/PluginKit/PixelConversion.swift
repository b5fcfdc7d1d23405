import PluginAPI

/// Conversions encoders need to read the host's borrowed images in one shape.
public enum PixelConversion {
    /// A tightly packed, straight-alpha RGBA8 copy of `image` (RGBA8 or RGBA16; none, straight or premultiplied).
    ///
    /// 16-bit samples round to the nearest 8-bit value; premultiplied colour is divided by alpha with rounding
    /// (`c * 255 / a`, clamped); `IP_ALPHA_NONE` forces alpha to 255 whatever the buffer holds.
    /// Throws INVALID_DATA for an empty image or a stride too small for a row, UNSUPPORTED for another format.
    public static func straightRGBA8(_ image: ip_image) throws -> [UInt8] {
        let width = Int(image.width), height = Int(image.height)
        guard let source = image.pixels, width > 0, height > 0 else {
            throw PluginFailure.invalidData("cannot encode an empty \(width)x\(height) image")
        }
        let sixteen: Bool
        switch image.format {
        case IP_PIXEL_RGBA8: sixteen = false
        case IP_PIXEL_RGBA16: sixteen = true
        default: throw PluginFailure.unsupported("pixel format \(image.format) is neither RGBA8 nor RGBA16")
        }
        let rowBytes = width * (sixteen ? 8 : 4)
        guard Int(image.stride) >= rowBytes else {
            throw PluginFailure.invalidData("stride \(image.stride) is smaller than a row of \(rowBytes) bytes")
        }
        let opaque = image.alpha_mode == IP_ALPHA_NONE
        let premultiplied = image.alpha_mode == IP_ALPHA_PREMULTIPLIED
        var output = [UInt8](repeating: 0, count: width * height * 4)
        output.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                let row = UnsafeRawPointer(source + y * Int(image.stride))
                for x in 0..<width {
                    var rgba: (UInt32, UInt32, UInt32, UInt32)
                    if sixteen {
                        func sample(_ c: Int) -> UInt32 {
                            (UInt32(row.loadUnaligned(fromByteOffset: x * 8 + c * 2, as: UInt16.self)) * 255 + 32767) / 65535
                        }
                        rgba = (sample(0), sample(1), sample(2), sample(3))
                    } else {
                        let p = row + x * 4
                        rgba = (UInt32(p.load(fromByteOffset: 0, as: UInt8.self)), UInt32(p.load(fromByteOffset: 1, as: UInt8.self)),
                                UInt32(p.load(fromByteOffset: 2, as: UInt8.self)), UInt32(p.load(fromByteOffset: 3, as: UInt8.self)))
                    }
                    if opaque {
                        rgba.3 = 255
                    } else if premultiplied, rgba.3 < 255 {
                        let a = rgba.3
                        if a == 0 {
                            rgba = (0, 0, 0, 0)
                        } else {
                            rgba.0 = min(255, (rgba.0 * 255 + a / 2) / a)
                            rgba.1 = min(255, (rgba.1 * 255 + a / 2) / a)
                            rgba.2 = min(255, (rgba.2 * 255 + a / 2) / a)
                        }
                    }
                    let o = (y * width + x) * 4
                    out[o] = UInt8(rgba.0)
                    out[o + 1] = UInt8(rgba.1)
                    out[o + 2] = UInt8(rgba.2)
                    out[o + 3] = UInt8(rgba.3)
                }
            }
        }
        return output
    }
}
