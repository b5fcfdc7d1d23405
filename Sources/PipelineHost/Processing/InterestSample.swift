#if canImport(Glibc)
import Glibc
#endif

/// An image reduced for `CropFocus`'s content strategies: straight 8-bit RGB at most `longestSide` a side, and the
/// two searches over it. The strategies follow libvips' (smartcrop.c) so their choices can be checked against
/// `vips smartcrop`; the code is this project's own.
struct InterestSample {
    let width: Int
    let height: Int
    /// Sample pixels per image pixel, across and down.
    let scaleX: Double
    let scaleY: Double
    /// R, G, B per pixel, row by row.
    let rgb: [UInt8]

    /// The image resampled to fit `longestSide` (entropy), or stretched to exactly `size` (attention's grid).
    init(_ image: Image, longestSide: Int) throws {
        let fits = max(image.width, image.height) <= longestSide
        try self.init(image, resampledTo: fits ? nil : PixelSize(width: longestSide, height: longestSide), mode: .fit)
    }

    init(_ image: Image, resampledTo size: PixelSize?, mode: ScaleMode) throws {
        var source = image
        if let size, size.width != image.width || size.height != image.height {
            source = try ImageTransformers.Resize.resample(image, to: size, mode: mode, allowUpscale: true)
        }
        width = source.width
        height = source.height
        scaleX = Double(source.width) / Double(image.width)
        scaleY = Double(source.height) / Double(image.height)
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        let shift: UInt16 = source.pixelFormat == .rgba16 ? 8 : 0
        let premultiplied = source.alphaMode == .premultiplied
        for y in 0..<height {
            for x in 0..<width {
                let p = source.pixel(x: x, y: y)
                var c = [p.r >> shift, p.g >> shift, p.b >> shift]
                let a = p.a >> shift
                if premultiplied, a > 0, a < 255 { c = c.map { min(255, UInt16((UInt32($0) * 255 + UInt32(a) / 2) / UInt32(a))) } }
                let i = (y * width + x) * 3
                rgb[i] = UInt8(c[0]); rgb[i + 1] = UInt8(c[1]); rgb[i + 2] = UInt8(c[2])
            }
        }
        self.rgb = rgb
    }

    // MARK: attention

    /// The side of the grid attention scores (its precision in placing the window).
    static let attentionGrid = 32

    /// The most interesting point of the image this grid was made from, in that image's pixels. The sample is the
    /// image stretched to a 32 x 32 grid; each cell scores its edges (|5 x Laplacian| of CIE Y), its closeness to
    /// skin's direction in XYZ (100 at the skin vector, falling with distance) and its red-green saturation (a*),
    /// the last two only where Y > 5 (dark areas say nothing); the scores are blurred over the window's size
    /// (sigma a tenth of the window's diagonal in cells, at least 1) and the peak cell is the point.
    func attentionPoint(window w: Int, _ h: Int, imageWidth: Int, imageHeight: Int) -> (x: Int, y: Int) {
        var linear = [Float](repeating: 0, count: 256)
        for v in 0..<256 {
            let c = Float(v) / 255
            linear[v] = c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        func f(_ t: Float) -> Float { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        let count = width * height
        var luminance = [Float](repeating: 0, count: count)
        var score = [Float](repeating: 0, count: count)
        for i in 0..<count {
            let r = linear[Int(rgb[i * 3])], g = linear[Int(rgb[i * 3 + 1])], b = linear[Int(rgb[i * 3 + 2])]
            // sRGB (D65) to XYZ on a 0...100 scale.
            let x = 100 * (0.4124 * r + 0.3576 * g + 0.1805 * b)
            let y = 100 * (0.2126 * r + 0.7152 * g + 0.0722 * b)
            let z = 100 * (0.0193 * r + 0.1192 * g + 0.9505 * b)
            luminance[i] = y
            guard y > 5 else { continue }
            let magnitude = (x * x + y * y + z * z).squareRoot()
            let dx = x / magnitude - 0.78, dy = y / magnitude - 0.57, dz = z / magnitude - 0.44
            let skin = 100 - 100 * (dx * dx + dy * dy + dz * dz).squareRoot()
            let a = 500 * (f(x / 95.047) - f(y / 100))
            score[i] = skin + a
        }
        for y in 0..<height {
            for x in 0..<width {
                func l(_ dx: Int, _ dy: Int) -> Float {
                    luminance[min(height - 1, max(0, y + dy)) * width + min(width - 1, max(0, x + dx))]
                }
                score[y * width + x] += abs(5 * (4 * l(0, 0) - l(-1, 0) - l(1, 0) - l(0, -1) - l(0, 1)))
            }
        }
        let sigma = max(1, (pow(Double(w) * scaleX, 2) + pow(Double(h) * scaleY, 2)).squareRoot() / 10)
        score = Self.gaussianBlur(score, columns: width, rows: height, sigma: sigma)
        var best = 0
        for i in score.indices where score[i] > score[best] { best = i }
        return (Int(Double(best % width) / scaleX), Int(Double(best / width) / scaleY))
    }

    /// A separable Gaussian (taps down to a fifth of the peak, as vips' gaussblur), edges clamped.
    static func gaussianBlur(_ grid: [Float], columns: Int, rows: Int, sigma: Double) -> [Float] {
        guard sigma > 0.01 else { return grid }
        let radius = max(1, Int((sigma * (2 * log(5.0)).squareRoot()).rounded(.down)))
        var taps = (-radius...radius).map { Float(exp(-Double($0 * $0) / (2 * sigma * sigma))) }
        let sum = taps.reduce(0, +)
        taps = taps.map { $0 / sum }
        var across = grid, out = grid
        for y in 0..<rows {
            for x in 0..<columns {
                var v: Float = 0
                for (k, t) in taps.enumerated() { v += t * grid[y * columns + min(columns - 1, max(0, x + k - radius))] }
                across[y * columns + x] = v
            }
        }
        for y in 0..<rows {
            for x in 0..<columns {
                var v: Float = 0
                for (k, t) in taps.enumerated() { v += t * across[min(rows - 1, max(0, y + k - radius)) * columns + x] }
                out[y * columns + x] = v
            }
        }
        return out
    }

    // MARK: entropy

    /// Cuts slices (an eighth of the larger overflow each) off the side whose strip has the lower entropy of its
    /// R, G and B histograms, across and down in turn, until the window is left.
    func entropyOrigin(_ w: Int, _ h: Int) -> (Int, Int) {
        var left = 0, top = 0, curW = width, curH = height
        let slice = max(Int((Double(width - w) / 8).rounded(.up)), Int((Double(height - h) / 8).rounded(.up)), 1)
        while curW > w || curH > h {
            let sliceW = min(curW - w, slice), sliceH = min(curH - h, slice)
            if sliceW > 0 {
                let leftScore = entropy(x: left, y: top, w: sliceW, h: curH)
                let rightScore = entropy(x: left + curW - sliceW, y: top, w: sliceW, h: curH)
                curW -= sliceW
                if leftScore < rightScore { left += sliceW }
            }
            if sliceH > 0 {
                let topScore = entropy(x: left, y: top, w: curW, h: sliceH)
                let bottomScore = entropy(x: left, y: top + curH - sliceH, w: curW, h: sliceH)
                curH -= sliceH
                if topScore < bottomScore { top += sliceH }
            }
        }
        return (left, top)
    }

    private func entropy(x: Int, y: Int, w: Int, h: Int) -> Double {
        var histogram = [Int](repeating: 0, count: 768)
        for row in y..<(y + h) {
            var i = (row * width + x) * 3
            for _ in 0..<w {
                histogram[Int(rgb[i])] += 1; histogram[256 + Int(rgb[i + 1])] += 1; histogram[512 + Int(rgb[i + 2])] += 1
                i += 3
            }
        }
        let total = Double(w * h * 3)
        return histogram.reduce(0.0) { sum, count in
            guard count > 0 else { return sum }
            let p = Double(count) / total
            return sum - p * log2(p)
        }
    }
}
