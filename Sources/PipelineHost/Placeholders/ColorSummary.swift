/// The colours of an image that a page shows before the image: its average and its few dominant colours.
public enum ColorSummary {
    /// One of the dominant colours, with the share of the (non-transparent) pixels it stands for.
    public struct Dominant: Sendable, Codable, Equatable {
        /// "#rrggbb".
        public var color: String
        /// 0...1; the shares of one summary add up to 1.
        public var share: Double
        public init(color: String, share: Double) { self.color = color; self.share = share }
    }

    /// The mean of the sRGB values, each pixel weighted by its alpha (a transparent pixel's colour is arbitrary),
    /// with the mean alpha. sRGB values rather than linear light: what CSS and imgproxy's `average` show, and what
    /// a browser paints for a 1×1 scale of the image.
    public static func average(of sample: PlaceholderSample) -> RGBAColor {
        var r = 0, g = 0, b = 0, weight = 0
        let pixels = sample.width * sample.height
        for i in 0..<pixels {
            let a = Int(sample.rgba[i * 4 + 3])
            r += Int(sample.rgba[i * 4]) * a
            g += Int(sample.rgba[i * 4 + 1]) * a
            b += Int(sample.rgba[i * 4 + 2]) * a
            weight += a
        }
        guard weight > 0 else { return RGBAColor(red: 0, green: 0, blue: 0, alpha: 0) }
        func mean(_ sum: Int) -> UInt8 { UInt8((sum + weight / 2) / weight) }
        return RGBAColor(red: mean(r), green: mean(g), blue: mean(b), alpha: UInt8((weight + pixels / 2) / pixels))
    }

    /// Up to `count` colours by variance-based box splitting (Wu's refinement of Heckbert's median cut): the
    /// opaque pixels (alpha ≥ 128) form one box in RGB; the box with the largest squared error is split along its
    /// channel of largest variance at the threshold that best separates the two sides (Otsu's criterion on that
    /// channel's histogram, so a split falls in the gap between two colours rather than through one, as a median
    /// split would), until there are `count` boxes or none can be split; each box gives its mean colour and share,
    /// most populous first. Deterministic (no random seeding): the same image always gives the same answer.
    public static func dominant(in sample: PlaceholderSample, count: Int = 5) -> [Dominant] {
        var pixels: [[Int]] = []
        pixels.reserveCapacity(sample.width * sample.height)
        for i in 0..<(sample.width * sample.height) where sample.rgba[i * 4 + 3] >= 128 {
            pixels.append([Int(sample.rgba[i * 4]), Int(sample.rgba[i * 4 + 1]), Int(sample.rgba[i * 4 + 2])])
        }
        guard !pixels.isEmpty, count > 0 else { return [] }
        var boxes: [Box] = [Box(pixels)]
        while boxes.count < count {
            guard let index = boxes.indices.filter({ boxes[$0].error > 0 }).max(by: { boxes[$0].error < boxes[$1].error }),
                  let (low, high) = boxes[index].split() else { break }
            boxes[index] = low
            boxes.append(high)
        }
        let total = Double(pixels.count)
        return boxes.map { box -> (Int, Dominant) in
            let n = box.pixels.count
            let mean = (0..<3).map { c in UInt8((box.pixels.reduce(0) { $0 + $1[c] } + n / 2) / n) }
            return (n, Dominant(color: hex(RGBAColor(red: mean[0], green: mean[1], blue: mean[2])), share: Double(n) / total))
        }
        .sorted { $0.0 > $1.0 || ($0.0 == $1.0 && $0.1.color < $1.1.color) }
        .map(\.1)
    }

    /// A set of pixels with its squared error about its mean, summed over the channels.
    private struct Box {
        let pixels: [[Int]]
        let variances: [Double]
        var error: Double { variances.reduce(0, +) * Double(pixels.count) }

        init(_ pixels: [[Int]]) {
            self.pixels = pixels
            let n = Double(pixels.count)
            variances = (0..<3).map { c in
                let mean = pixels.reduce(0.0) { $0 + Double($1[c]) } / n
                return pixels.reduce(0.0) { $0 + (Double($1[c]) - mean) * (Double($1[c]) - mean) } / n
            }
        }

        /// The two boxes on either side of the best threshold of the widest channel; nil when it is one value.
        func split() -> (Box, Box)? {
            let channel = variances.indices.max { variances[$0] < variances[$1] }!
            var histogram = [Int](repeating: 0, count: 256)
            for p in pixels { histogram[p[channel]] += 1 }
            let total = Double(pixels.count)
            let sum = (0..<256).reduce(0.0) { $0 + Double($1 * histogram[$1]) }
            var below = 0.0, belowSum = 0.0, best = -1.0, threshold = -1
            for t in 0..<255 {
                below += Double(histogram[t])
                belowSum += Double(t * histogram[t])
                guard below > 0, below < total else { continue }
                let m0 = belowSum / below, m1 = (sum - belowSum) / (total - below)
                let separation = below * (total - below) * (m0 - m1) * (m0 - m1)
                if separation > best { best = separation; threshold = t }
            }
            guard threshold >= 0 else { return nil }
            return (Box(pixels.filter { $0[channel] <= threshold }), Box(pixels.filter { $0[channel] > threshold }))
        }
    }

    /// "#rrggbb", lower case.
    public static func hex(_ color: RGBAColor) -> String {
        "#" + [color.red, color.green, color.blue].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
