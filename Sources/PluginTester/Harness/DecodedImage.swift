import PluginAPI

/// A decoded image copied out of its guarded buffer: what the checks compare and validate.
struct DecodedImage: Equatable {
    var width: Int
    var height: Int
    var stride: Int
    var format: ip_pixel_format
    var alphaMode: ip_alpha_mode
    var durationMilliseconds: Int
    var index: Int
    /// Tightly packed rows (stride removed), so two decodes compare by value.
    var pixels: [UInt8]

    var bytesPerPixel: Int { format == IP_PIXEL_RGBA16 ? 8 : 4 }

    /// Copies `image` out of `block` after checking that it fits; throws the problem otherwise.
    init(_ image: ip_image, block: GuardedMemory.Block) throws {
        guard image.format == IP_PIXEL_RGBA8 || image.format == IP_PIXEL_RGBA16 else {
            throw PluginUnderTest.Failure("returned pixel format \(image.format), neither RGBA8 nor RGBA16")
        }
        guard [IP_ALPHA_NONE, IP_ALPHA_STRAIGHT, IP_ALPHA_PREMULTIPLIED].contains(image.alpha_mode) else {
            throw PluginUnderTest.Failure("returned alpha mode \(image.alpha_mode), not NONE, STRAIGHT or PREMULTIPLIED")
        }
        width = Int(image.width)
        height = Int(image.height)
        stride = Int(image.stride)
        format = image.format
        alphaMode = image.alpha_mode
        durationMilliseconds = Int(image.duration_ms)
        index = Int(image.index)
        pixels = []
        let rowBytes = width * (format == IP_PIXEL_RGBA16 ? 8 : 4)
        guard width > 0, height > 0, stride >= rowBytes, stride * (height - 1) + rowBytes <= block.byteCount else {
            throw PluginUnderTest.Failure("returned a \(width)x\(height) image with stride \(stride) that does not fit its \(block.byteCount)-byte buffer")
        }
        pixels.reserveCapacity(rowBytes * height)
        for row in 0..<height {
            pixels += UnsafeBufferPointer(start: block.buffer + row * stride, count: rowBytes)
        }
    }

    /// Channel `c` (0 R, 1 G, 2 B, 3 A) of pixel (x, y) in the image's own range.
    func sample(_ x: Int, _ y: Int, _ c: Int) -> Int {
        let offset = (y * width + x) * bytesPerPixel
        if format == IP_PIXEL_RGBA16 {
            return Int(pixels[offset + c * 2]) | Int(pixels[offset + c * 2 + 1]) << 8
        }
        return Int(pixels[offset + c])
    }

    var maxSample: Int { format == IP_PIXEL_RGBA16 ? 65535 : 255 }

    /// Problems with the pixel values themselves (premultiplied colour above alpha, NONE with transparency).
    func valueProblems() -> [String] {
        var problems: [String] = []
        var premultipliedViolation: (Int, Int)?
        var transparentInOpaque: (Int, Int)?
        let step = max(1, (width * height) / 262_144)  // look at up to ~256k pixels
        var index = 0
        while index < width * height {
            let x = index % width, y = index / width
            let alpha = sample(x, y, 3)
            if alphaMode == IP_ALPHA_PREMULTIPLIED, premultipliedViolation == nil,
               sample(x, y, 0) > alpha || sample(x, y, 1) > alpha || sample(x, y, 2) > alpha {
                premultipliedViolation = (x, y)
            }
            if alphaMode == IP_ALPHA_NONE, transparentInOpaque == nil, alpha != maxSample { transparentInOpaque = (x, y) }
            index += step
        }
        if let (x, y) = premultipliedViolation {
            problems.append("alpha mode PREMULTIPLIED but pixel (\(x),\(y)) has a colour value above its alpha "
                            + "(\(sample(x, y, 0)),\(sample(x, y, 1)),\(sample(x, y, 2)),\(sample(x, y, 3)))")
        }
        if let (x, y) = transparentInOpaque {
            problems.append("alpha mode NONE but pixel (\(x),\(y)) has alpha \(sample(x, y, 3)), not \(maxSample)")
        }
        return problems
    }

    /// Mean absolute difference per channel in 8-bit units against another image of the same size.
    func meanDifference(to other: DecodedImage) -> Double {
        guard width == other.width, height == other.height else { return .infinity }
        var total = 0.0
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<4 {
                    let a = Double(sample(x, y, c)) * 255 / Double(maxSample)
                    let b = Double(other.sample(x, y, c)) * 255 / Double(other.maxSample)
                    total += abs(a - b)
                }
            }
        }
        return total / Double(width * height * 4)
    }

    var summary: String {
        "\(width)x\(height) \(format == IP_PIXEL_RGBA16 ? "RGBA16" : "RGBA8") "
            + ["alpha none", "straight alpha", "premultiplied alpha"][Int(alphaMode)]
    }
}
