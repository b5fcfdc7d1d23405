import Foundation
import PipelineHost

/// RGBA samples (straight alpha unless stated) as plain numbers, for fixtures and reference images.
struct Raster: Equatable {
    let width: Int
    let height: Int
    /// width * height * 4 values, row by row, R G B A.
    var samples: [UInt16]

    init(width: Int, height: Int, samples: [UInt16]) {
        self.width = width
        self.height = height
        self.samples = samples
    }

    /// The image's pixels at its own depth (0...255 or 0...65535).
    init(_ image: Image) {
        var samples: [UInt16] = []
        samples.reserveCapacity(image.width * image.height * 4)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y)
                samples += [p.r, p.g, p.b, p.a]
            }
        }
        self.init(width: image.width, height: image.height, samples: samples)
    }

    /// A deterministic 8-bit test card: gradients, a hard-edged block, per-pixel noise in blue (0...4*noise) and
    /// (optionally) an alpha ramp, so any transposition, flip or crop error changes many pixels.
    static func pattern(width: Int, height: Int, alpha: Bool = false, seed: UInt32 = 1, noise: UInt16 = 15) -> Raster {
        var state = seed &* 2_654_435_761 | 1
        var samples: [UInt16] = []
        samples.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 1_103_515_245 &+ 12345
                let grain = UInt16((state >> 16) & 15) * noise / 15
                let block = x < width / 3 && y < height / 2
                let r = UInt16(x * 255 / max(1, width - 1))
                let g = UInt16(y * 255 / max(1, height - 1))
                let b: UInt16 = block ? 230 : 40 + grain * 4
                let a: UInt16 = alpha ? UInt16(min(255, 60 + (x + y) * 195 / max(1, width + height - 2))) : 255
                samples += [r, g, b, a]
            }
        }
        return Raster(width: width, height: height, samples: samples)
    }

    func pixel(_ x: Int, _ y: Int) -> [UInt16] { Array(samples[(y * width + x) * 4..<(y * width + x) * 4 + 4]) }

    /// The sub-rectangle at (x, y) of width x height.
    func cropped(x: Int, y: Int, width w: Int, height h: Int) -> Raster {
        var out: [UInt16] = []
        out.reserveCapacity(w * h * 4)
        for row in y..<y + h { out += samples[(row * width + x) * 4..<(row * width + x + w) * 4] }
        return Raster(width: w, height: h, samples: out)
    }

    /// 8-bit limited-range luma (16...235) stretched to full range, as libavif's avifLimitedToFullY(8, v).
    func expandingLimitedRange() -> Raster {
        var out = samples
        for i in out.indices where i % 4 != 3 {
            out[i] = UInt16(min(255, max(0, ((Int(out[i]) - 16) * 255 + 109) / 219)))
        }
        return Raster(width: width, height: height, samples: out)
    }

    /// Colour multiplied by alpha (rounded), at `maxValue`.
    func premultiplied(maxValue: Int) -> Raster {
        var out = samples
        for i in stride(from: 0, to: out.count, by: 4) {
            let a = Int(out[i + 3])
            for c in 0..<3 { out[i + c] = UInt16((Int(out[i + c]) * a + maxValue / 2) / maxValue) }
        }
        return Raster(width: width, height: height, samples: out)
    }
}

/// How far two rasters of one size are apart.
struct Difference: CustomStringConvertible {
    var maxChannel = 0
    var differingSamples = 0
    var samples = 0
    var squaredError = 0.0
    var first: String?

    init(_ a: Raster, _ b: Raster) {
        precondition(a.width == b.width && a.height == b.height, "sizes differ")
        samples = a.samples.count
        for i in 0..<a.samples.count {
            let d = abs(Int(a.samples[i]) - Int(b.samples[i]))
            if d > 0 {
                differingSamples += 1
                if first == nil { first = "pixel (\((i / 4) % a.width), \((i / 4) / a.width)) channel \(i % 4): \(a.samples[i]) vs \(b.samples[i])" }
            }
            maxChannel = max(maxChannel, d)
            squaredError += Double(d * d)
        }
    }

    /// Peak signal-to-noise ratio in dB at `maxValue` (infinity when identical).
    func psnr(maxValue: Double) -> Double {
        let mse = squaredError / Double(max(1, samples))
        return mse == 0 ? .infinity : 10 * log10(maxValue * maxValue / mse)
    }

    var rootMeanSquare: Double { sqrt(squaredError / Double(max(1, samples))) }

    var description: String {
        "max channel difference \(maxChannel), \(differingSamples) of \(samples) samples differ"
            + (first.map { "; first: \($0)" } ?? "")
    }
}
