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
            let output = try Image(width: image.width, height: image.height, pixelFormat: image.pixelFormat, alphaMode: .none)
            let premultiplied = image.alphaMode == .premultiplied
            let colour = [UInt32(background.red), UInt32(background.green), UInt32(background.blue)]
            image.withUnsafeRows { source in
                output.withUnsafeMutableRows { target in
                    for y in 0..<image.height {
                        let s = source + y * image.stride, t = target + y * output.stride
                        switch image.pixelFormat {
                        case .rgba8:
                            for x in 0..<image.width {
                                let p = x * 4, a = UInt32(s[p + 3])
                                for c in 0..<3 {
                                    let over = premultiplied ? UInt32(s[p + c]) * 255 : UInt32(s[p + c]) * a
                                    t[p + c] = UInt8((over + colour[c] * (255 - a) + 127) / 255)
                                }
                                t[p + 3] = 255
                            }
                        case .rgba16:
                            let sp = UnsafeRawPointer(s).assumingMemoryBound(to: UInt16.self)
                            let tp = UnsafeMutableRawPointer(t).assumingMemoryBound(to: UInt16.self)
                            for x in 0..<image.width {
                                let p = x * 4, a = UInt64(sp[p + 3])
                                for c in 0..<3 {
                                    let over = premultiplied ? UInt64(sp[p + c]) * 65535 : UInt64(sp[p + c]) * a
                                    tp[p + c] = UInt16((over + UInt64(colour[c] * 257) * (65535 - a) + 32767) / 65535)
                                }
                                tp[p + 3] = 65535
                            }
                        }
                    }
                }
            }
            return output.with(color: image.color).with(durationMilliseconds: image.durationMilliseconds, index: image.index)
        }
    }
}
