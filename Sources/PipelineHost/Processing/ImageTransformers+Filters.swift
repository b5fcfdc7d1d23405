extension ImageTransformers {
    /// Gaussian blur of standard deviation `sigma` pixels (ImageMagick's `-blur 0xσ`, CSS `blur()`), in
    /// premultiplied alpha so transparent pixels lend no colour to their neighbours.
    public struct GaussianBlur: ImageTransforming {
        public let sigma: Double
        public init(sigma: Double) { self.sigma = sigma }
        public var key: TransformKey { TransformKey("blur", ["sigma": .number(sigma)]) }

        public func transform(_ image: Image) throws -> Image {
            guard sigma > 0 else { return image }
            guard sigma <= 1000 else { throw PipelineError.invalidArgument("a blur's sigma must be at most 1000 pixels, not \(sigma)") }
            return try FloatPixels(image).blurred(sigma: sigma).image(like: image, opaque: image.alphaMode == .none)
        }
    }

    /// Unsharp mask: out = in + amount × (in − blur(in, σ)), as ImageMagick's `-unsharp 0xσ+amount+0`. After a large
    /// reduction a light one (σ 0.5, amount 1: vipsthumbnail's former default) restores the crispness the
    /// averaging took.
    public struct Sharpen: ImageTransforming {
        public let sigma: Double
        public let amount: Double
        public init(sigma: Double = 0.5, amount: Double = 1) { self.sigma = sigma; self.amount = amount }
        public var key: TransformKey { TransformKey("sharpen", ["sigma": .number(sigma), "amount": .number(amount)]) }

        public func transform(_ image: Image) throws -> Image {
            guard sigma > 0, amount != 0 else { return image }
            guard sigma <= 100, abs(amount) <= 100 else {
                throw PipelineError.invalidArgument("sharpen takes a sigma up to 100 and an amount up to 100, not \(sigma) and \(amount)")
            }
            var pixels = FloatPixels(image)
            let blurred = pixels.blurred(sigma: sigma)
            let k = Float(amount)
            for i in pixels.values.indices where i % 4 != 3 {
                // Clamp to what the pixel's alpha allows, so the straight colour stays within range.
                let a = pixels.values[i - i % 4 + 3]
                pixels.values[i] = min(max(pixels.values[i] + k * (pixels.values[i] - blurred.values[i]), 0), a)
            }
            return try pixels.image(like: image, opaque: image.alphaMode == .none)
        }
    }

    /// Rounded corners of `radius` pixels, anti-aliased: a pixel's alpha is scaled by how much of it lies inside the
    /// rounded rectangle (Nuke's `RoundedCorners`, CSS `border-radius`). The radius is capped at half the shorter side.
    public struct RoundedCorners: ImageTransforming {
        public let radius: Double
        public init(radius: Double) { self.radius = radius }
        public var key: TransformKey { TransformKey("rounded", ["radius": .number(radius)]) }

        public func transform(_ image: Image) throws -> Image {
            let r = min(max(radius, 0), Double(min(image.width, image.height)) / 2)
            guard r > 0 else { return image }
            let w = Double(image.width), h = Double(image.height)
            return try Coverage.mask(image) { px, py in
                // Inside the rounded rectangle by how much: the distance to its corner circle in the corner squares,
                // to the nearest edge elsewhere.
                let cx = min(max(px, r), w - r), cy = min(max(py, r), h - r)
                if cx == px || cy == py { return min(px, w - px, py, h - py) }
                let dx = px - cx, dy = py - cy
                return r - (dx * dx + dy * dy).squareRoot()
            }
        }
    }

    /// A circle: the centred square of the image (`gravity` picks another), masked to the inscribed circle,
    /// anti-aliased (Nuke's and Kingfisher's `Circle`, an avatar).
    public struct Circle: ImageTransforming {
        public let gravity: Gravity
        public init(gravity: Gravity = .center) { self.gravity = gravity }
        public var key: TransformKey {
            gravity == .center ? TransformKey("circle") : TransformKey("circle", ["gravity": .text(gravity.rawValue)])
        }

        public func transform(_ image: Image) throws -> Image {
            let side = min(image.width, image.height)
            let square = try Crop(size: PixelSize(width: side, height: side), gravity: gravity).transform(image)
            let r = Double(side) / 2
            return try Coverage.mask(square) { px, py in
                let dx = px - r, dy = py - r
                return r - (dx * dx + dy * dy).squareRoot()
            }
        }
    }
}

/// Scales each pixel's alpha by the fraction of its area inside a shape, for shapes with anti-aliased edges.
enum Coverage {
    /// The image with alpha × the area of each pixel inside the shape whose signed distance (positive inside, in
    /// pixels) at a point is `inside(x, y)`. Pixels whose centre is further than half a diagonal from the edge are
    /// wholly in or out; the few on the edge are measured with 8 × 8 samples (exact to 1/64 of the area, where a
    /// distance ramp is off by up to a quarter of the pixel on curves). Colour kept (straight alpha); an opaque
    /// image gains alpha.
    static func mask(_ image: Image, inside: (Double, Double) -> Double) throws -> Image {
        let scalesColour = image.alphaMode == .premultiplied, opaque = image.alphaMode == .none
        func coverage(_ x: Int, _ y: Int) -> Double {
            let distance = inside(Double(x) + 0.5, Double(y) + 0.5)
            if distance >= 0.71 { return 1 }
            if distance <= -0.71 { return 0 }
            var count = 0
            for sy in 0..<8 { for sx in 0..<8 where inside(Double(x) + (Double(sx) + 0.5) / 8, Double(y) + (Double(sy) + 0.5) / 8) > 0 { count += 1 } }
            return Double(count) / 64
        }
        return try PixelKernel.map(image, alphaMode: scalesColour ? .premultiplied : .straight) { s, x, y, t in
            let k = coverage(x, y)
            for c in 0..<3 { t[c] = scalesColour ? UInt8(Double(s[c]) * k + 0.5) : s[c] }
            t[3] = UInt8((opaque ? 255 : Double(s[3])) * k + 0.5)
        } rgba16: { s, x, y, t in
            let k = coverage(x, y)
            for c in 0..<3 { t[c] = scalesColour ? UInt16(Double(s[c]) * k + 0.5) : s[c] }
            t[3] = UInt16((opaque ? 65535 : Double(s[3])) * k + 0.5)
        }
    }
}
