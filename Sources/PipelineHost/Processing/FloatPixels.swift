/// An image as premultiplied float RGBA in 0...1, for the transformers that filter neighbourhoods (blur, sharpen)
/// or scale coverage (rounded corners, circle), so that each is written once for both pixel formats.
///
/// Premultiplied because filtering straight colours lets the colour of invisible pixels bleed into visible ones
/// (the dark fringes of a naive blur around a transparent icon); the conversion back divides it out again.
struct FloatPixels {
    let width: Int
    let height: Int
    var values: [Float]

    init(width: Int, height: Int, values: [Float]) {
        self.width = width; self.height = height; self.values = values
    }

    init(_ image: Image) {
        width = image.width
        height = image.height
        var values = [Float](repeating: 0, count: image.width * image.height * 4)
        let scale = 1 / Float(image.pixelFormat.maxValue)
        let premultiply = image.alphaMode == .straight, opaque = image.alphaMode == .none
        values.withUnsafeMutableBufferPointer { out in
            image.withUnsafeRows { rows in
                for y in 0..<image.height {
                    let row = rows + y * image.stride
                    for x in 0..<image.width {
                        let o = (y * image.width + x) * 4
                        for c in 0..<4 {
                            out[o + c] = Float(Self.sample(row, x * 4 + c, image.pixelFormat)) * scale
                        }
                        if opaque { out[o + 3] = 1 } else if premultiply {
                            let a = out[o + 3]
                            out[o] *= a; out[o + 1] *= a; out[o + 2] *= a
                        }
                    }
                }
            }
        }
        self.values = values
    }

    private static func sample(_ row: UnsafePointer<UInt8>, _ index: Int, _ format: PixelFormat) -> UInt16 {
        switch format {
        case .rgba8: UInt16(row[index])
        case .rgba16: UnsafeRawPointer(row).assumingMemoryBound(to: UInt16.self)[index]
        }
    }

    /// Back to `like`'s pixel format (and colour label, frame facts), straight alpha, or no alpha when `opaque`.
    func image(like: Image, opaque: Bool) throws -> Image {
        let output = try Image(width: width, height: height, pixelFormat: like.pixelFormat, alphaMode: opaque ? .none : .straight)
        let maxValue = Float(like.pixelFormat.maxValue)
        values.withUnsafeBufferPointer { v in
            output.withUnsafeMutableRows { rows in
                for y in 0..<height {
                    let row = rows + y * output.stride
                    for x in 0..<width {
                        let o = (y * width + x) * 4
                        let a = min(max(v[o + 3], 0), 1)
                        let unpremultiply: Float = opaque ? 1 : a > 0 ? 1 / a : 0
                        for c in 0..<4 {
                            let value = c == 3 ? (opaque ? 1 : a) : min(max(v[o + c] * unpremultiply, 0), 1)
                            let stored = value * maxValue + 0.5
                            switch like.pixelFormat {
                            case .rgba8: row[x * 4 + c] = UInt8(stored)
                            case .rgba16: UnsafeMutableRawPointer(row).assumingMemoryBound(to: UInt16.self)[x * 4 + c] = UInt16(stored)
                            }
                        }
                    }
                }
            }
        }
        return output.with(color: like.color).with(durationMilliseconds: like.durationMilliseconds, index: like.index)
    }

    /// A separable Gaussian blur of standard deviation `sigma` (pixels), edges extended (ImageMagick's default
    /// virtual pixels). Each weight is the Gaussian's integral over the pixel's width rather than its value at the
    /// pixel's centre: a pixel is an area, and at small sigmas (0.5 for sharpening) point samples make a kernel
    /// visibly narrower than the sigma asked (ImageMagick integrates too). Cut at 3 sigma plus the half pixel,
    /// normalised so flat areas stay exactly flat.
    func blurred(sigma: Double) -> FloatPixels {
        guard sigma > 0, width > 0, height > 0 else { return self }
        let radius = max(1, Int((3 * sigma + 0.5).rounded(.up)))
        let scale = 1 / (sigma * 2.0.squareRoot())
        // Spelled out with types: as one expression the type checker can run out of time on a loaded machine.
        var kernel: [Float] = (-radius...radius).map { (offset: Int) -> Float in
            let centre = Double(offset)
            let upper: Double = erf((centre + 0.5) * scale)
            let lower: Double = erf((centre - 0.5) * scale)
            return Float(0.5 * (upper - lower))
        }
        let total = kernel.reduce(0, +)
        kernel = kernel.map { $0 / total }
        var horizontal = [Float](repeating: 0, count: values.count)
        var output = [Float](repeating: 0, count: values.count)
        let w = height > 0 ? width : 0, h = height
        let cores = ImageTransformers.Resize.threads
        // One pass along rows, one along columns; a pixel is one SIMD4 (R, G, B, A premultiplied).
        values.withUnsafeBufferPointer { source in
            horizontal.withUnsafeMutableBufferPointer { target in
                Self.pass(source, target, kernel: kernel, radius: radius, width: w, height: h, horizontal: true, cores: cores)
            }
        }
        horizontal.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                Self.pass(source, target, kernel: kernel, radius: radius, width: w, height: h, horizontal: false, cores: cores)
            }
        }
        return FloatPixels(width: w, height: h, values: output)
    }
}

extension FloatPixels {
    /// One direction of a separable filter, edges extended, rows split into bands over the cores.
    static func pass(_ source: UnsafeBufferPointer<Float>, _ target: UnsafeMutableBufferPointer<Float>, kernel: [Float],
                     radius: Int, width w: Int, height h: Int, horizontal: Bool, cores: Int) {
        let input = UnsafeRawPointer(source.baseAddress!).assumingMemoryBound(to: SIMD4<Float>.self)
        let out = UnsafeMutableRawPointer(target.baseAddress!).assumingMemoryBound(to: SIMD4<Float>.self)
        kernel.withUnsafeBufferPointer { kernel in
            Bands(count: h, costPerItem: w * 4 * kernel.count, cores: cores).run { rows in
                for y in rows {
                    for x in 0..<w {
                        var sum = SIMD4<Float>(repeating: 0)
                        if horizontal {
                            for k in 0..<kernel.count { sum += input[y * w + min(max(x + k - radius, 0), w - 1)] * kernel[k] }
                        } else {
                            for k in 0..<kernel.count { sum += input[min(max(y + k - radius, 0), h - 1) * w + x] * kernel[k] }
                        }
                        out[y * w + x] = sum
                    }
                }
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
