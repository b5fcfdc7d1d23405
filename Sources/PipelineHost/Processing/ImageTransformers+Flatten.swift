extension ImageTransformers {
    /// Composites an image onto an opaque colour: out = colour × (1 − α) + pixel × α, per channel, in the image's
    /// encoded values (as ImageMagick's `-background C -flatten` and vips' `flatten` do). The result has no alpha.
    ///
    /// What a format without alpha needs: JPEG otherwise stores the colour under transparent pixels, black for
    /// most sources, so a transparent SVG icon became a black square.
    public struct Flatten: ImageTransforming {
        public let background: RGBAColor
        public init(background: RGBAColor) { self.background = background }
        public var key: TransformKey { TransformKey("flatten", ["": .color(background)]) }

        public func transform(_ image: Image) throws -> Image {
            guard image.alphaMode != .none else { return image }
            let premultiplied = image.alphaMode == .premultiplied
            let colour = [UInt32(background.red), UInt32(background.green), UInt32(background.blue)]
            return try PixelKernel.map(image, alphaMode: .none) { s, _, _, t in
                let a = UInt32(s[3])
                for c in 0..<3 {
                    let over = premultiplied ? UInt32(s[c]) * 255 : UInt32(s[c]) * a
                    t[c] = UInt8((over + colour[c] * (255 - a) + 127) / 255)
                }
                t[3] = 255
            } rgba16: { s, _, _, t in
                let a = UInt64(s[3])
                for c in 0..<3 {
                    let over = premultiplied ? UInt64(s[c]) * 65535 : UInt64(s[c]) * a
                    t[c] = UInt16((over + UInt64(colour[c] * 257) * (65535 - a) + 32767) / 65535)
                }
                t[3] = 65535
            }
        }
    }
}
