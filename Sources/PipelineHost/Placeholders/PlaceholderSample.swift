/// The small straight-alpha sRGB RGBA8 picture every placeholder is computed from.
///
/// Why one sample: ThumbHash is defined on at most 100×100 pixels, BlurHash, the colours and the difference hash
/// only need a few thousand pixels, and one ≤ 100 px decode (the coders' shrink-on-load makes it cheap) serves all
/// of them, so `/info` with placeholders costs a thumbnail decode, never a full-size one.
public struct PlaceholderSample: Sendable, Equatable {
    /// The longest side the sample may have (ThumbHash's own bound).
    public static let maxSide = 100

    public let width: Int
    public let height: Int
    /// width × height × 4 bytes, R G B A, straight (not premultiplied) alpha.
    public let rgba: [UInt8]

    public init(width: Int, height: Int, rgba: [UInt8]) throws {
        guard width > 0, height > 0, rgba.count == width * height * 4 else {
            throw PipelineError.invalidArgument("a placeholder sample needs width × height × 4 bytes, got \(rgba.count) for \(width)x\(height)")
        }
        self.width = width
        self.height = height
        self.rgba = rgba
    }

    /// The image reduced to fit `maxSide` (aspect kept, never enlarged), as 8-bit straight sRGB. The image is taken
    /// to be sRGB already: the pipeline's finishing step converts other colour spaces before it hands images out.
    public init(_ image: Image) throws {
        var source = image
        if image.width > Self.maxSide || image.height > Self.maxSide {
            source = try ImageTransformers.ResizeTo(size: PixelSize(width: Self.maxSide, height: Self.maxSide), mode: .fit).transform(image)
        }
        let shift: UInt16 = source.pixelFormat == .rgba8 ? 0 : 8
        var bytes = [UInt8](repeating: 0, count: source.width * source.height * 4)
        var index = 0
        for y in 0..<source.height {
            for x in 0..<source.width {
                let p = source.pixel(x: x, y: y)
                // 16-bit values rounded to 8 bits, not truncated: 0x7f80 is 127.5, which rounds up as JS would.
                func narrow(_ v: UInt16) -> Int { shift == 0 ? Int(v) : min(255, (Int(v) + 128) >> 8) }
                var r = narrow(p.r), g = narrow(p.g), b = narrow(p.b)
                let a = source.alphaMode == .none ? 255 : narrow(p.a)
                if source.alphaMode == .premultiplied {
                    r = a == 0 ? 0 : min(255, (r * 255 + a / 2) / a)
                    g = a == 0 ? 0 : min(255, (g * 255 + a / 2) / a)
                    b = a == 0 ? 0 : min(255, (b * 255 + a / 2) / a)
                }
                bytes[index] = UInt8(r); bytes[index + 1] = UInt8(g); bytes[index + 2] = UInt8(b); bytes[index + 3] = UInt8(a)
                index += 4
            }
        }
        try self.init(width: source.width, height: source.height, rgba: bytes)
    }

    /// The colour channels over white where the sample is transparent (BlurHash and the difference hash have no
    /// alpha: a transparent pixel's stored colour is arbitrary, often black, and would darken the placeholder).
    func rgbOverWhite() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) {
            let a = Int(rgba[i * 4 + 3])
            for c in 0..<3 {
                let v = Int(rgba[i * 4 + c])
                out[i * 3 + c] = UInt8((v * a + 255 * (255 - a) + 127) / 255)
            }
        }
        return out
    }
}
