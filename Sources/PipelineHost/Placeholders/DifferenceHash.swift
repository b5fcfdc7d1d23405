/// A 64-bit perceptual hash (dHash): the image as 9 × 8 grey cells, one bit per horizontally adjacent pair, set
/// when the right cell is brighter. Near-duplicates (rescaled, recompressed, slightly recoloured) differ in a few
/// bits; unrelated images in about half. Conventions as Python's ImageHash `dhash`: Rec. 601 luma, rows top to
/// bottom, the first bit the most significant of the 16 hex digits, so hashes compare across the two.
public enum DifferenceHash {
    public static func hash(of sample: PlaceholderSample) -> UInt64 {
        let rgb = sample.rgbOverWhite()
        var grey = [Double](repeating: 0, count: sample.width * sample.height)
        for i in grey.indices {
            let r = 299 * Double(rgb[i * 3]), g = 587 * Double(rgb[i * 3 + 1]), b = 114 * Double(rgb[i * 3 + 2])
            grey[i] = (r + g + b) / 1000
        }
        let cells = areaAverage(grey, width: sample.width, height: sample.height, toWidth: 9, toHeight: 8)
        var bits: UInt64 = 0
        for y in 0..<8 {
            for x in 0..<8 {
                bits = bits << 1 | (cells[y * 9 + x + 1] > cells[y * 9 + x] ? 1 : 0)
            }
        }
        return bits
    }

    /// 16 lower-case hex digits.
    public static func hex(_ hash: UInt64) -> String {
        let text = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }

    /// Bits that differ between two hashes: 0 for the same picture, about 32 for unrelated ones.
    public static func distance(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }

    /// Each output cell the mean of the input area it covers, fractional pixels weighted by their overlap (an
    /// exact box reduction, so no detail smaller than a cell aliases into the hash); a smaller input is enlarged
    /// the same way, each cell taking the pixels it overlaps.
    static func areaAverage(_ values: [Double], width: Int, height: Int, toWidth: Int, toHeight: Int) -> [Double] {
        var out = [Double](repeating: 0, count: toWidth * toHeight)
        let sx = Double(width) / Double(toWidth), sy = Double(height) / Double(toHeight)
        for oy in 0..<toHeight {
            let y0 = Double(oy) * sy, y1 = y0 + sy
            for ox in 0..<toWidth {
                let x0 = Double(ox) * sx, x1 = x0 + sx
                var sum = 0.0, weight = 0.0
                for y in Int(y0)..<min(height, Int(y1.rounded(.up))) {
                    let wy = min(Double(y + 1), y1) - max(Double(y), y0)
                    guard wy > 0 else { continue }
                    for x in Int(x0)..<min(width, Int(x1.rounded(.up))) {
                        let wx = min(Double(x + 1), x1) - max(Double(x), x0)
                        guard wx > 0 else { continue }
                        sum += values[y * width + x] * wx * wy
                        weight += wx * wy
                    }
                }
                out[oy * toWidth + ox] = weight > 0 ? sum / weight : 0
            }
        }
        return out
    }
}
