import PipelineHost

/// A synthetic image whose every sample is a known function of (x, y): the ground truth of the decode tests.
///
/// Samples are in `0...maxValue` (the PAM MAXVAL), so a pattern made for a 2-bit gray PNG only uses the four
/// values a 2-bit PNG can store and nothing is lost on the way through ImageMagick.
struct Pattern: Sendable {
    enum Channels: Int, Sendable {
        case gray = 1, grayAlpha = 2, rgb = 3, rgba = 4

        var tupleType: String {
            switch self {
            case .gray: "GRAYSCALE"
            case .grayAlpha: "GRAYSCALE_ALPHA"
            case .rgb: "RGB"
            case .rgba: "RGB_ALPHA"
            }
        }
    }

    var width: Int
    var height: Int
    var channels: Channels
    var maxValue: Int
    /// The samples of pixel (x, y), `channels.rawValue` of them.
    var samples: @Sendable (_ x: Int, _ y: Int) -> [Int]

    /// The pixel as RGBA in `0...maxValue` (gray replicated, opaque alpha added).
    func rgba(x: Int, y: Int) -> [Int] {
        let s = samples(x, y)
        switch channels {
        case .gray: return [s[0], s[0], s[0], maxValue]
        case .grayAlpha: return [s[0], s[0], s[0], s[1]]
        case .rgb: return s + [maxValue]
        case .rgba: return s
        }
    }

    /// What a decoder must return for pixel (x, y) at 8 bits (`to: 255`) or 16 bits (`to: 65535`).
    /// Widening is exact (bit replication equals v * max / maxValue for 1, 2, 4 and 8 bits); narrowing 16 → 8 rounds
    /// to nearest, as libpng's png_set_scale_16 does.
    func expected(x: Int, y: Int, to target: Int) -> RGBA16Pixel {
        let v = rgba(x: x, y: y).map { UInt16(($0 * target + maxValue / 2) / maxValue) }
        return RGBA16Pixel(r: v[0], g: v[1], b: v[2], a: v[3])
    }

    /// The pattern as a PAM file (netpbm P7), which ImageMagick reads at its exact MAXVAL.
    var pam: [UInt8] {
        var bytes = Array("""
            P7
            WIDTH \(width)
            HEIGHT \(height)
            DEPTH \(channels.rawValue)
            MAXVAL \(maxValue)
            TUPLTYPE \(channels.tupleType)
            ENDHDR

            """.utf8)
        for y in 0..<height {
            for x in 0..<width {
                for sample in samples(x, y) {
                    if maxValue > 255 { bytes.append(UInt8(sample >> 8)) }
                    bytes.append(UInt8(sample & 0xFF))
                }
            }
        }
        return bytes
    }
}

extension Pattern {
    /// Gray levels that visit every value of a `bits`-deep sample, odd-sized so that rows do not end on a byte.
    static func gray(bits: Int, width: Int = 37, height: Int = 23) -> Pattern {
        let levels = 1 << bits
        // At 16 bits a large odd factor spreads the values over the whole range (both bytes matter).
        let spread = bits > 8 ? 2053 : 1
        return Pattern(width: width, height: height, channels: .gray, maxValue: levels - 1) { x, y in
            [(x * 3 + y * 5 + x * y * 7) * spread % levels]
        }
    }

    /// 8- or 16-bit colour with an optional alpha ramp.
    static func color(bits: Int, alpha: Bool, width: Int = 37, height: Int = 23) -> Pattern {
        let maxValue = (1 << bits) - 1
        return Pattern(width: width, height: height, channels: alpha ? .rgba : .rgb, maxValue: maxValue) { x, y in
            let r = (x * 7919 + y * 31) % (maxValue + 1)
            let g = (y * 4099 + x * 17) % (maxValue + 1)
            let b = ((x + y) * 2053) % (maxValue + 1)
            return alpha ? [r, g, b, (x * 613 + y * 1297) % (maxValue + 1)] : [r, g, b]
        }
    }

    /// Gray plus alpha at 8 or 16 bits.
    static func grayAlpha(bits: Int, width: Int = 37, height: Int = 23) -> Pattern {
        let levels = 1 << bits
        return Pattern(width: width, height: height, channels: .grayAlpha, maxValue: levels - 1) { x, y in
            [(x * 7919 + y * 13) % levels, (y * 4099 + x * 3) % levels]
        }
    }

    /// A few colours repeated, so ImageMagick writes a palette; `alpha` adds partial and full transparency.
    /// Transparent entries use colours that survive ImageMagick's handling exactly (black when fully transparent,
    /// 0/255 components when partly transparent).
    static func palette(colours count: Int, alpha: Bool, width: Int = 37, height: Int = 23) -> Pattern {
        let opaque: [[Int]] = [[255, 0, 0], [10, 20, 30], [0, 128, 64], [250, 240, 5], [90, 0, 200], [1, 2, 3],
                               [200, 100, 50], [33, 66, 99]]
        let translucent: [[Int]] = [[0, 0, 0, 0], [0, 0, 255, 128], [255, 255, 0, 64], [255, 255, 255, 200]]
        let entries = alpha
            ? Array((translucent + opaque.map { $0 + [255] }).prefix(count))
            : Array(opaque.prefix(count))
        return Pattern(width: width, height: height, channels: alpha ? .rgba : .rgb, maxValue: 255) { x, y in
            entries[(x + 2 * y + x / 3) % entries.count]
        }
    }
}
