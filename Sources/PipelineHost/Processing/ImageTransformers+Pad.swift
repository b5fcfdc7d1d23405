extension ImageTransformers {
    /// Adds a border (imgproxy's `padding`), or extends the canvas to a size placed by gravity (imgproxy's `extend`,
    /// vips' `embed`), filled with a colour, or left transparent when none is given (a format without alpha then
    /// flattens it onto the output's background, as every transparent pixel).
    public struct Pad: ImageTransforming {
        public enum Amount: Sendable, Hashable {
            /// Pixels on each side.
            case border(top: Int, right: Int, bottom: Int, left: Int)
            /// The canvas grown to at least this size (a side already larger is kept), the image placed by gravity.
            case extend(to: PixelSize, gravity: Gravity)
        }

        public let amount: Amount
        public let fill: RGBAColor?

        public init(_ amount: Amount, fill: RGBAColor? = nil) {
            self.amount = amount
            self.fill = fill
        }

        public var key: TransformKey {
            let colour: TransformKey.Value = fill.map { .color($0) } ?? .text("transparent")
            switch amount {
            case .border(let top, let right, let bottom, let left):
                return TransformKey("pad", ["": .text("\(top),\(right),\(bottom),\(left)"), "fill": colour])
            case .extend(let size, let gravity):
                return TransformKey("extend", ["": .size(size), "gravity": .text(gravity.rawValue), "fill": colour])
            }
        }

        /// The margins for an image of this size.
        func margins(width: Int, height: Int) -> (top: Int, right: Int, bottom: Int, left: Int) {
            switch amount {
            case .border(let top, let right, let bottom, let left): return (top, right, bottom, left)
            case .extend(let size, let gravity):
                let w = max(width, size.width), h = max(height, size.height)
                let left = gravity.origin(window: width, total: w, vertical: false)
                let top = gravity.origin(window: height, total: h, vertical: true)
                return (top, w - width - left, h - height - top, left)
            }
        }

        public func transform(_ image: Image) throws -> Image {
            let m = margins(width: image.width, height: image.height)
            guard m.top > 0 || m.right > 0 || m.bottom > 0 || m.left > 0 else { return image }
            let width = image.width + m.left + m.right, height = image.height + m.top + m.bottom
            // Transparent fill needs alpha; an opaque image with an opaque fill stays without.
            let alpha: AlphaMode = image.alphaMode != .none ? image.alphaMode : (fill.map { $0.alpha == 255 } ?? false) ? .none : .straight
            let out = try Image(width: width, height: height, pixelFormat: image.pixelFormat, alphaMode: alpha)
            let colour = fill ?? RGBAColor(red: 0, green: 0, blue: 0, alpha: 0)
            let bpp = image.pixelFormat.bytesPerPixel
            // The fill as this format stores it (premultiplied when the image is).
            var pixel = [UInt8](repeating: 0, count: bpp)
            let channels = [colour.red, colour.green, colour.blue].map { alpha == .premultiplied ? UInt32($0) * UInt32(colour.alpha) / 255 : UInt32($0) } + [UInt32(colour.alpha)]
            for c in 0..<4 {
                if bpp == 4 { pixel[c] = UInt8(channels[c]) } else {
                    let v = UInt16(channels[c] * 257)
                    withUnsafeBytes(of: v) { pixel[c * 2] = $0[0]; pixel[c * 2 + 1] = $0[1] }
                }
            }
            out.withUnsafeMutableRows { target in
                image.withUnsafeRows { source in
                    for y in 0..<height {
                        let row = target + y * out.stride
                        for x in 0..<width { for b in 0..<bpp { row[x * bpp + b] = pixel[b] } }
                        let sy = y - m.top
                        guard sy >= 0, sy < image.height else { continue }
                        (row + m.left * bpp).update(from: source + sy * image.stride, count: image.width * bpp)
                        if image.alphaMode == .none && alpha != .none {
                            // The source had no alpha channel to copy: its pixels are opaque.
                            for x in 0..<image.width {
                                let p = row + (m.left + x) * bpp
                                if bpp == 4 { p[3] = 255 } else { p[6] = 255; p[7] = 255 }
                            }
                        }
                    }
                }
            }
            return out.with(color: image.color)
        }
    }
}
