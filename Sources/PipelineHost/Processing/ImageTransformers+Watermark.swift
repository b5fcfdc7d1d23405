extension ImageTransformers {
    /// Draws a mark over the image (imgproxy's `watermark`): placed by gravity and offsets, or repeated over the
    /// whole image, at an opacity, optionally scaled relative to the image.
    ///
    /// Composited with premultiplied colour (out = mark + image × (1 − mark α), the mark's α scaled by the opacity),
    /// so a mark's soft, anti-aliased edges blend without the dark or light fringes that averaging straight colours
    /// leaves. The image keeps its pixel format and alpha mode; an opaque image stays opaque.
    public struct Watermark: ImageTransforming {
        public enum Placement: Sendable, Hashable {
            /// At the gravity's edge or corner, `offset` pixels inwards from it (from the centre: right and down).
            case gravity(Gravity)
            /// Tiled from the top-left corner, `offset` pixels of spacing between tiles.
            case repeated
        }

        public let mark: WatermarkImage
        public let opacity: Double
        public let placement: Placement
        public let offsetX: Int
        public let offsetY: Int
        /// 0: the mark's own size; else the mark fits within this fraction of the image's width and height.
        public let scale: Double

        public init(_ mark: WatermarkImage, opacity: Double = 1, placement: Placement = .gravity(.center),
                    offsetX: Int = 0, offsetY: Int = 0, scale: Double = 0) {
            self.mark = mark
            self.opacity = min(max(opacity, 0), 1)
            self.placement = placement
            self.offsetX = offsetX
            self.offsetY = offsetY
            self.scale = max(0, scale)
        }

        public var key: TransformKey {
            let position: String = switch placement {
            case .gravity(let gravity): gravity.rawValue
            case .repeated: "repeat"
            }
            return TransformKey("watermark", ["": .text(mark.identity), "opacity": .number(opacity), "position": .text(position),
                                              "offset": .text("\(offsetX),\(offsetY)"), "scale": .number(scale)])
        }

        /// The box the mark fits in for an image of this size (nil: the mark's own size).
        func markBox(width: Int, height: Int) -> PixelSize? {
            guard scale > 0 else { return nil }
            return PixelSize(width: max(1, Int((Double(width) * scale).rounded())), height: max(1, Int((Double(height) * scale).rounded())))
        }

        /// Where the mark's top-left corner goes (imgproxy's placement: offsets inwards from the named edges; the
        /// centre rounds half a pixel of odd slack to the right and down).
        func origin(width: Int, height: Int, markWidth: Int, markHeight: Int, gravity: Gravity) -> (x: Int, y: Int) {
            let (fx, fy) = gravity.fractions
            let x = fx == 0 ? offsetX : fx == 1 ? width - markWidth - offsetX : (width - markWidth + 1) / 2 + offsetX
            let y = fy == 0 ? offsetY : fy == 1 ? height - markHeight - offsetY : (height - markHeight + 1) / 2 + offsetY
            return (x, y)
        }

        public func transform(_ image: Image) throws -> Image {
            guard opacity > 0 else { return image }
            let mark = try self.mark.pixels(fitting: markBox(width: image.width, height: image.height))
            guard mark.width > 0, mark.height > 0 else { return image }
            // The mark's pixel (premultiplied, opacity applied) over image pixel (x, y), or nil where none lies.
            let markAt: (Int, Int) -> Int?
            switch placement {
            case .gravity(let gravity):
                let o = origin(width: image.width, height: image.height, markWidth: mark.width, markHeight: mark.height, gravity: gravity)
                markAt = { x, y in
                    let mx = x - o.x, my = y - o.y
                    return mx >= 0 && my >= 0 && mx < mark.width && my < mark.height ? (my * mark.width + mx) * 4 : nil
                }
            case .repeated:
                let periodX = mark.width + max(0, offsetX), periodY = mark.height + max(0, offsetY)
                markAt = { x, y in
                    let mx = x % periodX, my = y % periodY
                    return mx < mark.width && my < mark.height ? (my * mark.width + mx) * 4 : nil
                }
            }
            let strength = Float(opacity)
            let mode = image.alphaMode
            return try mark.values.withUnsafeBufferPointer { m in
                /// Composites in 0...1 values: `base` as the image stores it, returns what to store.
                @inline(__always) func over(_ base: inout (Float, Float, Float, Float), _ i: Int) {
                    let ma = m[i + 3] * strength
                    guard ma > 0 else { return }
                    let mr = m[i] * strength, mg = m[i + 1] * strength, mb = m[i + 2] * strength
                    switch mode {
                    case .none:
                        base = (mr + base.0 * (1 - ma), mg + base.1 * (1 - ma), mb + base.2 * (1 - ma), 1)
                    case .premultiplied:
                        base = (mr + base.0 * (1 - ma), mg + base.1 * (1 - ma), mb + base.2 * (1 - ma), ma + base.3 * (1 - ma))
                    case .straight:
                        let keep = base.3 * (1 - ma), a = ma + keep
                        guard a > 0 else { base = (0, 0, 0, 0); return }
                        base = ((mr + base.0 * keep) / a, (mg + base.1 * keep) / a, (mb + base.2 * keep) / a, a)
                    }
                }
                return try PixelKernel.map(image, alphaMode: mode) { s, x, y, t in
                    guard let i = markAt(x, y) else { t.update(from: s, count: 4); return }
                    var p = (Float(s[0]) / 255, Float(s[1]) / 255, Float(s[2]) / 255, Float(s[3]) / 255)
                    over(&p, i)
                    t[0] = UInt8(min(max(p.0, 0), 1) * 255 + 0.5); t[1] = UInt8(min(max(p.1, 0), 1) * 255 + 0.5)
                    t[2] = UInt8(min(max(p.2, 0), 1) * 255 + 0.5); t[3] = mode == .none ? s[3] : UInt8(min(max(p.3, 0), 1) * 255 + 0.5)
                } rgba16: { s, x, y, t in
                    guard let i = markAt(x, y) else { t.update(from: s, count: 4); return }
                    var p = (Float(s[0]) / 65535, Float(s[1]) / 65535, Float(s[2]) / 65535, Float(s[3]) / 65535)
                    over(&p, i)
                    t[0] = UInt16(min(max(p.0, 0), 1) * 65535 + 0.5); t[1] = UInt16(min(max(p.1, 0), 1) * 65535 + 0.5)
                    t[2] = UInt16(min(max(p.2, 0), 1) * 65535 + 0.5); t[3] = mode == .none ? s[3] : UInt16(min(max(p.3, 0), 1) * 65535 + 0.5)
                }
            }
        }
    }
}
