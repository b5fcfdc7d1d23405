#if canImport(Glibc)
import Glibc
#endif

/// Wolt's BlurHash (github.com/woltapp/blurhash): a DCT of the image in linear light, quantised into base 83.
///
/// The arithmetic follows the reference C encoder step by step — single-precision sums in the same order, the same
/// float/double conversions (`cosf` of a double angle, `powf` of a double ratio) — so that the strings equal the
/// reference's bit for bit, which the tests check against woltapp's own encoder (PyPI `blurhash-python`).
public enum BlurHash {
    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~".utf8)

    /// The hash of 8-bit sRGB pixels (`rgb`: width × height × 3), with 1...9 components across and down.
    public static func encode(rgb: [UInt8], width: Int, height: Int, componentsX: Int = 4, componentsY: Int = 3) throws -> String {
        guard (1...9).contains(componentsX), (1...9).contains(componentsY) else {
            throw PipelineError.invalidArgument("BlurHash components must be 1...9 each, not \(componentsX)x\(componentsY)")
        }
        guard width > 0, height > 0, rgb.count == width * height * 3 else {
            throw PipelineError.invalidArgument("BlurHash needs width × height × 3 bytes")
        }
        let linear = (0..<256).map(sRGBToLinear)
        var factors: [(Float, Float, Float)] = []
        for cy in 0..<componentsY {
            for cx in 0..<componentsX {
                let cosX = (0..<width).map { cosf(Float(Double.pi * Double(cx) * Double($0) / Double(width))) }
                let cosY = (0..<height).map { cosf(Float(Double.pi * Double(cy) * Double($0) / Double(height))) }
                var r: Float = 0, g: Float = 0, b: Float = 0
                for y in 0..<height {
                    for x in 0..<width {
                        let basis = cosX[x] * cosY[y]
                        let p = (y * width + x) * 3
                        r += basis * linear[Int(rgb[p])]
                        g += basis * linear[Int(rgb[p + 1])]
                        b += basis * linear[Int(rgb[p + 2])]
                    }
                }
                let normalisation: Float = cx == 0 && cy == 0 ? 1 : 2
                let scale = normalisation / Float(width * height)
                factors.append((r * scale, g * scale, b * scale))
            }
        }
        var hash = base83((componentsX - 1) + (componentsY - 1) * 9, length: 1)
        let ac = factors.dropFirst()
        var maximumValue: Float = 1
        if !ac.isEmpty {
            var actual: Float = 0
            for f in ac { actual = max(abs(f.0), abs(f.1), abs(f.2), actual) }
            let quantised = Int(max(0, min(82, Float(Double(actual * 166) - 0.5).rounded(.down))))
            maximumValue = (Float(quantised) + 1) / 166
            hash += base83(quantised, length: 1)
        } else {
            hash += base83(0, length: 1)
        }
        let dc = factors[0]
        hash += base83((linearToSRGB(dc.0) << 16) + (linearToSRGB(dc.1) << 8) + linearToSRGB(dc.2), length: 4)
        for f in ac {
            func quantise(_ v: Float) -> Int {
                let signed = Float(copysign(Double(powf(abs(v / maximumValue), 0.5)), Double(v)))
                return Int(max(0, min(18, Float(Double(signed * 9) + 9.5).rounded(.down))))
            }
            hash += base83(quantise(f.0) * 19 * 19 + quantise(f.1) * 19 + quantise(f.2), length: 2)
        }
        return hash
    }

    /// The hash of a placeholder sample (transparent areas over white).
    public static func encode(_ sample: PlaceholderSample, componentsX: Int = 4, componentsY: Int = 3) throws -> String {
        try encode(rgb: sample.rgbOverWhite(), width: sample.width, height: sample.height, componentsX: componentsX, componentsY: componentsY)
    }

    /// The average colour a hash stands for (its DC term), as 8-bit sRGB; nil for a malformed hash.
    public static func averageColor(of hash: String) -> RGBAColor? {
        let digits = Array(hash.utf8)
        guard digits.count >= 6, let value = decode83(digits[2..<6]) else { return nil }
        return RGBAColor(red: UInt8(value >> 16), green: UInt8((value >> 8) & 255), blue: UInt8(value & 255))
    }

    static func sRGBToLinear(_ value: Int) -> Float {
        let v = Float(value) / 255
        if Double(v) <= 0.04045 { return Float(Double(v) / 12.92) }
        return powf(Float((Double(v) + 0.055) / 1.055), 2.4)
    }

    static func linearToSRGB(_ value: Float) -> Int {
        let v = max(0, min(1, value))
        if Double(v) <= 0.0031308 { return Int(Double(v) * 12.92 * 255 + 0.5) }
        return Int((1.055 * Double(powf(v, Float(1 / 2.4))) - 0.055) * 255 + 0.5)
    }

    static func base83(_ value: Int, length: Int) -> String {
        var out: [UInt8] = []
        for i in 1...length {
            var divisor = 1
            for _ in 0..<(length - i) { divisor *= 83 }
            out.append(alphabet[(value / divisor) % 83])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode83(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for digit in digits {
            guard let index = alphabet.firstIndex(of: digit) else { return nil }
            value = value * 83 + index
        }
        return value
    }
}
