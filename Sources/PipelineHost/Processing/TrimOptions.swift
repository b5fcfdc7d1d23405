/// Cutting a uniform border away (imgproxy's `trim`, libvips' `find_trim`): scanned product shots and logos
/// arrive with white or transparent margins of any width, and a thumbnail of the margin is a thumbnail of nothing.
///
/// The border is found as `vips find_trim` finds it, so the same threshold means the same cut: alpha flattened
/// onto the background, a 3×3 median (one noisy pixel in a margin, a JPEG ringing speck, is not content), then a
/// pixel is content when any channel differs from the background by more than `threshold` (in 8-bit steps); the
/// box is the smallest holding every content pixel. A box with nothing in it leaves the image as it is (an image of
/// one colour is not trimmed to nothing).
public struct TrimOptions: Sendable, Hashable, Codable {
    /// How far from the background a channel may be and still be border, in 0...255 steps. imgproxy's default 10.
    public var threshold: Double
    /// The border's colour; nil: the top-left pixel's (imgproxy's default).
    public var background: RGBAColor?
    /// Cut the same width from the left and right (the smaller of the two), so the content stays where it was centred.
    public var equalHorizontal: Bool
    /// The same for top and bottom.
    public var equalVertical: Bool

    public init(threshold: Double = 10, background: RGBAColor? = nil, equalHorizontal: Bool = false, equalVertical: Bool = false) {
        self.threshold = max(0, threshold)
        self.background = background
        self.equalHorizontal = equalHorizontal
        self.equalVertical = equalVertical
    }

    var keyText: String {
        var text = TransformKey.Value.number(threshold).description
        text += ":" + (background.map { $0.description } ?? "corner")
        if equalHorizontal { text += ":equal-h" }
        if equalVertical { text += ":equal-v" }
        return text
    }

    /// The box of content in `image` (x, y, width, height), nil when nothing differs from the background.
    public func contentBox(of image: Image) -> (x: Int, y: Int, width: Int, height: Int)? {
        let width = image.width, height = image.height
        guard width > 0, height > 0 else { return nil }
        let bpp = image.pixelFormat.bytesPerPixel
        let scale: Float = image.pixelFormat == .rgba8 ? 1 : 1 / 257
        let premultiplied = image.alphaMode == .premultiplied, opaque = image.alphaMode == .none
        return image.withUnsafeRows { rows -> (x: Int, y: Int, width: Int, height: Int)? in
            /// Channel c of pixel (x, y) in 0...255, alpha flattened onto `bg`.
            func raw(_ x: Int, _ y: Int, _ c: Int) -> Float {
                let p = rows + y * image.stride + x * bpp
                return bpp == 4 ? Float(p[c]) : Float(UnsafeRawPointer(p).assumingMemoryBound(to: UInt16.self)[c]) * scale
            }
            let corner = (raw(0, 0, 0), raw(0, 0, 1), raw(0, 0, 2), opaque ? 255 : raw(0, 0, 3))
            // The top-left pixel's colour is taken as stored, flattened onto white as vips' default background.
            let bg: (Float, Float, Float) = background.map { (Float($0.red), Float($0.green), Float($0.blue)) }
                ?? Self.flattened(corner, onto: (255, 255, 255), premultiplied: premultiplied)
            func flat(_ x: Int, _ y: Int, _ c: Int) -> Float {
                guard !opaque else { return raw(x, y, c) }
                let a = raw(x, y, 3) / 255, v = raw(x, y, c)
                let b = c == 0 ? bg.0 : c == 1 ? bg.1 : bg.2
                return (premultiplied ? v : v * a) + b * (1 - a)
            }
            let threshold = Float(self.threshold)
            /// Whether (x, y) is content: the 3×3 median (edges repeated) of any channel past the threshold.
            func content(_ x: Int, _ y: Int) -> Bool {
                withUnsafeTemporaryAllocation(of: Float.self, capacity: 9) { window in
                    for c in 0..<3 {
                        var n = 0
                        for dy in -1...1 {
                            let yy = min(max(y + dy, 0), height - 1)
                            for dx in -1...1 { window[n] = flat(min(max(x + dx, 0), width - 1), yy, c); n += 1 }
                        }
                        // Insertion sort of nine: the median is the fifth.
                        for i in 1..<9 {
                            let v = window[i]
                            var j = i - 1
                            while j >= 0 && window[j] > v { window[j + 1] = window[j]; j -= 1 }
                            window[j + 1] = v
                        }
                        let b = c == 0 ? bg.0 : c == 1 ? bg.1 : bg.2
                        if abs(window[4] - b) > threshold { return true }
                    }
                    return false
                }
            }
            // From each edge inwards to the first content: a margin costs its own area, an untrimmed image a
            // row or column per side.
            guard let top = (0..<height).first(where: { y in (0..<width).contains { content($0, y) } }) else { return nil }
            let bottom = (top..<height).reversed().first { y in (0..<width).contains { content($0, y) } }!
            let left = (0..<width).first { x in (top...bottom).contains { content(x, $0) } }!
            let right = (left..<width).reversed().first { x in (top...bottom).contains { content(x, $0) } }!
            var box = (x: left, y: top, width: right - left + 1, height: bottom - top + 1)
            if equalHorizontal {
                let cut = min(box.x, width - box.x - box.width)
                box.x = cut
                box.width = width - 2 * cut
            }
            if equalVertical {
                let cut = min(box.y, height - box.y - box.height)
                box.y = cut
                box.height = height - 2 * cut
            }
            return box
        }
    }

    private static func flattened(_ p: (Float, Float, Float, Float), onto b: (Float, Float, Float), premultiplied: Bool) -> (Float, Float, Float) {
        let a = p.3 / 255
        func one(_ v: Float, _ bv: Float) -> Float { (premultiplied ? v : v * a) + bv * (1 - a) }
        return (one(p.0, b.0), one(p.1, b.1), one(p.2, b.2))
    }
}

extension ImageTransformers {
    /// `TrimOptions` as a transformer: the content box cut out, or the image unchanged when it is all border.
    public struct Trim: ImageTransforming {
        public let options: TrimOptions
        public init(_ options: TrimOptions = TrimOptions()) { self.options = options }
        public var key: TransformKey { TransformKey("trim", ["": .text(options.keyText)]) }
        public func transform(_ image: Image) throws -> Image {
            guard let box = options.contentBox(of: image), box.width != image.width || box.height != image.height else { return image }
            return try Crop(x: box.x, y: box.y, width: box.width, height: box.height).transform(image)
        }
    }
}
