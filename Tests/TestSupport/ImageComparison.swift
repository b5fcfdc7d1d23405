import Foundation
import PipelineHost

/// Measures of how far two decoded images are apart.
public enum ImageComparison {
    /// Peak signal-to-noise ratio in dB of two images of the same size and pixel format, on the 8-bit scale
    /// (16-bit differences are scaled by 255 / 65535, which leaves the ratio as it is at 16 bits); infinity when
    /// they are identical. `includingAlpha: false` compares R, G and B only; `step` > 1 samples every step-th
    /// pixel of every step-th row.
    public static func psnr(_ a: Image, _ b: Image, includingAlpha: Bool = true, step: Int = 1) -> Double {
        precondition(a.width == b.width && a.height == b.height, "sizes differ")
        let scale = 255 / Double(a.pixelFormat.maxValue)
        var squared = 0.0
        var count = 0
        for y in stride(from: 0, to: a.height, by: step) {
            for x in stride(from: 0, to: a.width, by: step) {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                var pairs = [(p.r, q.r), (p.g, q.g), (p.b, q.b)]
                if includingAlpha { pairs.append((p.a, q.a)) }
                for (u, v) in pairs {
                    let d = Double(Int(u) - Int(v)) * scale
                    squared += d * d
                    count += 1
                }
            }
        }
        let mse = squared / Double(max(1, count))
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }
}
