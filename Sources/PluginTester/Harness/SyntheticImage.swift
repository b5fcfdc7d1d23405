import PluginAPI

/// A small image the checks make themselves (odd size, gradients, an alpha ramp), for encoders and for coders
/// that have no sample files: encoded by the coder under test, it becomes that coder's sample.
enum SyntheticImage {
    static let width = 61
    static let height = 37

    /// Straight-alpha RGBA8, tightly packed. With `opaque`, alpha is 255 everywhere.
    static func rgba8(width: Int = width, height: Int = height, opaque: Bool = false) -> [UInt8] {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let alpha = opaque ? 255 : (x < 4 ? 0 : min(255, 64 + (x + y) * 3))
                pixels += [UInt8(x * 255 / (width - 1)), UInt8(y * 255 / (height - 1)), UInt8((x * 7 + y * 3) % 256), UInt8(alpha)]
            }
        }
        return pixels
    }

    static func image(width: Int = width, height: Int = height, format: ip_pixel_format = IP_PIXEL_RGBA8,
                      alpha: ip_alpha_mode = IP_ALPHA_STRAIGHT) -> ip_image {
        .plain(width: width, height: height, stride: width * (format == IP_PIXEL_RGBA16 ? 8 : 4), format: format,
               alpha: alpha, pixels: nil)
    }

    /// The synthetic image widened to RGBA16 (v * 257, native endian).
    static func rgba16() -> [UInt8] {
        rgba8().flatMap { value -> [UInt8] in
            let wide = UInt16(value) * 257
            return [UInt8(wide & 0xFF), UInt8(wide >> 8)]
        }
    }

    /// The synthetic image premultiplied (each channel ≤ alpha).
    static func premultiplied() -> [UInt8] {
        var pixels = rgba8()
        for index in Swift.stride(from: 0, to: pixels.count, by: 4) {
            let alpha = Int(pixels[index + 3])
            for c in 0..<3 { pixels[index + c] = UInt8((Int(pixels[index + c]) * alpha + 127) / 255) }
        }
        return pixels
    }

    /// Encodes the synthetic image (or one of another size) with the coder: by default at best quality, lossless
    /// where offered; `fast` asks for the fastest lossy encode (large inputs for other checks).
    static func encode(_ coder: CoderUnderTest, width: Int = width, height: Int = height, fast: Bool = false,
                       label: String) -> CoderUnderTest.Outcome<[UInt8]> {
        let frames = [(image(width: width, height: height), rgba8(width: width, height: height))]
        let first = coder.encode(frames, quality: fast ? 80 : 100, speed: fast ? 10 : 0, flags: fast ? 0 : UInt32(IP_ENCODE_LOSSLESS),
                                 label: label)
        // A lossy-only format may refuse LOSSLESS: then its best lossy quality.
        guard !fast, first.status == IP_STATUS_UNSUPPORTED else { return first }
        return coder.encode(frames, quality: 100, label: label + " (lossy)")
    }

    /// Encodes a 3-frame animation (the synthetic image shifted by 20 pixels per frame, 100 ms each).
    static func encodeAnimation(_ coder: CoderUnderTest, label: String) -> CoderUnderTest.Outcome<[UInt8]> {
        let base = rgba8(opaque: true)
        let frames = (0..<3).map { frame -> (image: ip_image, pixels: [UInt8]) in
            var image = self.image(alpha: IP_ALPHA_NONE)
            image.duration_ms = 100
            image.index = UInt32(frame)
            var pixels = base
            for index in Swift.stride(from: 0, to: pixels.count, by: 4) { pixels[index] = pixels[index] &+ UInt8(frame * 80) }
            return (image, pixels)
        }
        return coder.encode(frames, quality: 100, label: label)
    }

    /// Encode, then decode with the same coder: the decoded image must have the synthetic size.
    static func roundTrip(_ coder: CoderUnderTest, label: String) -> (bytes: [UInt8]?, image: DecodedImage?, problem: String?) {
        let encoded = encode(coder, label: "\(label): encode")
        guard encoded.ok, let bytes = encoded.value, !bytes.isEmpty else {
            return (nil, nil, "encoding a \(width)x\(height) RGBA8 image failed: \(encoded.statusText)")
        }
        guard coder.info.decodes else { return (bytes, nil, nil) }
        let decoded = coder.decode(bytes, label: "\(label): decode what it encoded")
        guard decoded.ok, let image = decoded.value else {
            return (bytes, nil, "decoding its own \(bytes.count)-byte output failed: \(decoded.statusText)")
        }
        if image.width != width || image.height != height {
            return (bytes, image, "its own output decodes to \(image.width)x\(image.height), not \(width)x\(height)")
        }
        return (bytes, image, nil)
    }
}

extension ip_image {
    /// An image description without colour facts (all colour fields zero: sRGB).
    static func plain(width: Int, height: Int, stride: Int, format: ip_pixel_format, alpha: ip_alpha_mode,
                      pixels: UnsafeMutablePointer<UInt8>?) -> ip_image {
        var image = ip_image()
        image.struct_size = UInt32(MemoryLayout<ip_image>.size)
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.stride = UInt32(stride)
        image.format = format
        image.alpha_mode = alpha
        image.pixels = pixels
        return image
    }
}
