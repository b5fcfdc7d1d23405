#if canImport(Glibc)
import Glibc
#endif

/// Precomputed filter taps for one axis of a separable resample.
///
/// Lanczos-3, widened by the reduction factor when shrinking so every source pixel contributes (an area-correct
/// low-pass, the same approach as libvips' reduce), with edge pixels extended. Weights of each output sample are
/// normalised to sum to 1 so flat areas stay exactly flat.
struct ResamplingKernel {
    /// For each output index: first source index and its weights.
    let starts: [Int]
    let weights: [[Float]]

    /// The widest filter, for estimating a pass's cost.
    var maxTaps: Int { weights.map(\.count).max() ?? 1 }

    /// `scale` maps source to output (output = source * scale); `offset` is in output pixels.
    init(sourceCount: Int, outputCount: Int, scale: Double, offset: Double) {
        let filterScale = min(1.0, scale)
        let support = 3.0 / filterScale
        var starts: [Int] = []
        var weights: [[Float]] = []
        starts.reserveCapacity(outputCount)
        weights.reserveCapacity(outputCount)
        for o in 0..<outputCount {
            let center = (Double(o) + 0.5 - offset) / scale - 0.5
            let first = Int((center - support).rounded(.up))
            let last = Int((center + support).rounded(.down))
            var taps = [Double](repeating: 0, count: max(1, last - first + 1))
            var sum = 0.0
            for i in first...max(first, last) {
                let w = Self.lanczos3((Double(i) - center) * filterScale)
                taps[i - first] = w
                sum += w
            }
            if sum == 0 { taps = [Double](repeating: 0, count: taps.count); taps[taps.count / 2] = 1; sum = 1 }
            // Fold taps that fall outside the source onto the edge pixels.
            let clampedFirst = max(0, min(sourceCount - 1, first))
            var lowest = clampedFirst, highest = clampedFirst
            for k in taps.indices {
                let index = max(0, min(sourceCount - 1, first + k))
                lowest = min(lowest, index)
                highest = max(highest, index)
            }
            var folded = [Float](repeating: 0, count: highest - lowest + 1)
            for (k, w) in taps.enumerated() {
                let index = max(0, min(sourceCount - 1, first + k))
                folded[index - lowest] += Float(w / sum)
            }
            starts.append(lowest)
            weights.append(folded)
        }
        self.starts = starts
        self.weights = weights
    }

    static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        let ax = abs(x)
        if ax >= 3 { return 0 }
        let px = Double.pi * x
        return 3 * sin(px) * sin(px / 3) / (px * px)
    }
}
