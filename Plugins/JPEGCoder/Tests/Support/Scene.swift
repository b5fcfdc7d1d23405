/// Synthetic photographs: smooth gradients, hard-edged shapes and a little texture, so that JPEG behaves as on a
/// photo (mostly low frequencies, some edges) and every region is distinguishable after rotation.
enum Scene {
    /// An RGB scene of any size; deterministic.
    static func make(width: Int, height: Int) -> Raster {
        var samples = [UInt8](repeating: 0, count: width * height * 3)
        let w = Double(width), h = Double(height)
        var seed: UInt32 = 12345
        for y in 0..<height {
            let fy = Double(y) / h
            for x in 0..<width {
                let fx = Double(x) / w
                var r = 40 + 180 * fx, g = 60 + 150 * fy, b = 200 - 120 * fx * fy
                // A disc and a bar with hard edges.
                let dx = fx - 0.62, dy = fy - 0.45
                if dx * dx + dy * dy < 0.04 { r = 250; g = 230; b = 40 }
                if fx > 0.1 && fx < 0.3 && fy > 0.65 && fy < 0.8 { r = 20; g = 30; b = 120 }
                // Mild texture (a cheap LCG), as sensor noise.
                seed = seed &* 1_103_515_245 &+ 12345
                let noise = Double(Int(seed >> 16 & 15) - 8) * 0.6
                let index = (y * width + x) * 3
                samples[index] = UInt8(max(0, min(255, r + noise)))
                samples[index + 1] = UInt8(max(0, min(255, g + noise)))
                samples[index + 2] = UInt8(max(0, min(255, b + noise)))
            }
        }
        return Raster(width: width, height: height, channels: 3, samples: samples)
    }

    /// Four flat quadrant colours (red, green, blue, white) that tell every orientation apart.
    static func quadrants(width: Int, height: Int) -> Raster {
        let colours: [[UInt8]] = [[220, 30, 30], [30, 200, 40], [40, 50, 210], [245, 245, 245]]
        var samples = [UInt8]()
        samples.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width { samples += colours[(y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1)] }
        }
        return Raster(width: width, height: height, channels: 3, samples: samples)
    }
}
