#if canImport(Glibc)
import Glibc
#endif

/// Evan Wallace's ThumbHash (github.com/evanw/thumbhash): the image's LPQA channels (luminance, two colour
/// differences, alpha) as a few DCT terms, in about 25 bytes that also carry the aspect ratio and alpha.
///
/// Computed as the reference `rgbaToThumbHash` computes it — doubles, its loop order, JavaScript's `Math.round`
/// (half up) — so the bytes match a reference port; the tests compare with PyPI's `thumbhash-python`.
public enum ThumbHash {
    /// The hash bytes of a straight-alpha RGBA8 image of at most 100 × 100 pixels.
    public static func encode(rgba: [UInt8], width w: Int, height h: Int) throws -> [UInt8] {
        guard w > 0, h > 0, w <= 100, h <= 100, rgba.count == w * h * 4 else {
            throw PipelineError.invalidArgument("ThumbHash needs at most 100x100 RGBA pixels, not \(w)x\(h) (\(rgba.count) bytes)")
        }
        func round(_ x: Double) -> Int { Int((x + 0.5).rounded(.down)) }
        var avgR = 0.0, avgG = 0.0, avgB = 0.0, avgA = 0.0
        for i in 0..<(w * h) {
            let j = i * 4, alpha = Double(rgba[j + 3]) / 255
            avgR += alpha / 255 * Double(rgba[j])
            avgG += alpha / 255 * Double(rgba[j + 1])
            avgB += alpha / 255 * Double(rgba[j + 2])
            avgA += alpha
        }
        if avgA > 0 { avgR /= avgA; avgG /= avgA; avgB /= avgA }
        let hasAlpha = avgA < Double(w * h)
        let lLimit = hasAlpha ? 5.0 : 7.0
        let lx = max(1, round(lLimit * Double(w) / Double(max(w, h))))
        let ly = max(1, round(lLimit * Double(h) / Double(max(w, h))))
        var l = [Double](repeating: 0, count: w * h), p = l, q = l, a = l
        for i in 0..<(w * h) {
            let j = i * 4, alpha = Double(rgba[j + 3]) / 255
            let r = avgR * (1 - alpha) + alpha / 255 * Double(rgba[j])
            let g = avgG * (1 - alpha) + alpha / 255 * Double(rgba[j + 1])
            let b = avgB * (1 - alpha) + alpha / 255 * Double(rgba[j + 2])
            l[i] = (r + g + b) / 3
            p[i] = (r + g) / 2 - b
            q[i] = r - g
            a[i] = alpha
        }
        func encodeChannel(_ channel: [Double], _ nx: Int, _ ny: Int) -> (dc: Double, ac: [Double], scale: Double) {
            var dc = 0.0, ac: [Double] = [], scale = 0.0
            var fx = [Double](repeating: 0, count: w)
            for cy in 0..<ny {
                var cx = 0
                while cx * ny < nx * (ny - cy) {
                    var f = 0.0
                    for x in 0..<w { fx[x] = cos(Double.pi / Double(w) * Double(cx) * (Double(x) + 0.5)) }
                    for y in 0..<h {
                        let fy = cos(Double.pi / Double(h) * Double(cy) * (Double(y) + 0.5))
                        for x in 0..<w { f += channel[x + y * w] * fx[x] * fy }
                    }
                    f /= Double(w * h)
                    if cx > 0 || cy > 0 {
                        ac.append(f)
                        scale = max(scale, abs(f))
                    } else {
                        dc = f
                    }
                    cx += 1
                }
            }
            if scale > 0 { ac = ac.map { 0.5 + 0.5 / scale * $0 } }
            return (dc, ac, scale)
        }
        let lc = encodeChannel(l, max(3, lx), max(3, ly))
        let pc = encodeChannel(p, 3, 3)
        let qc = encodeChannel(q, 3, 3)
        let ac = hasAlpha ? encodeChannel(a, 5, 5) : (dc: 1, ac: [], scale: 1)
        let isLandscape = w > h
        let header24 = round(63 * lc.dc) | (round(31.5 + 31.5 * pc.dc) << 6) | (round(31.5 + 31.5 * qc.dc) << 12)
            | (round(31 * lc.scale) << 18) | ((hasAlpha ? 1 : 0) << 23)
        let header16 = (isLandscape ? ly : lx) | (round(63 * pc.scale) << 3) | (round(63 * qc.scale) << 9) | ((isLandscape ? 1 : 0) << 15)
        var hash = [header24 & 255, (header24 >> 8) & 255, header24 >> 16, header16 & 255, header16 >> 8]
        if hasAlpha { hash.append(round(15 * ac.dc) | (round(15 * ac.scale) << 4)) }
        let start = hash.count
        var index = 0
        for channel in hasAlpha ? [lc.ac, pc.ac, qc.ac, ac.ac] : [lc.ac, pc.ac, qc.ac] {
            for f in channel {
                let slot = start + index >> 1
                if slot == hash.count { hash.append(0) }
                hash[slot] |= round(15 * f) << ((index & 1) << 2)
                index += 1
            }
        }
        return hash.map { UInt8(truncatingIfNeeded: $0) }
    }

    /// The hash of a placeholder sample, base64 as the reference's demo and ports print it.
    public static func encode(_ sample: PlaceholderSample) throws -> String {
        Base64.encode(try encode(rgba: sample.rgba, width: sample.width, height: sample.height))
    }

    /// The aspect ratio (width / height) a hash records, as the reference's `thumbHashToApproximateAspectRatio`.
    public static func approximateAspectRatio(of hash: [UInt8]) -> Double? {
        guard hash.count >= 5 else { return nil }
        let hasAlpha = hash[2] & 0x80 != 0
        let isLandscape = hash[4] & 0x80 != 0
        let lMax = hasAlpha ? 5.0 : 7.0
        let count = Double(hash[3] & 7)
        let lx = isLandscape ? lMax : count, ly = isLandscape ? count : lMax
        return ly > 0 ? lx / ly : nil
    }
}
