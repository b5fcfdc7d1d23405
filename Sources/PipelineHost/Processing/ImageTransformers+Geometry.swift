extension ImageTransformers {
    /// Quarter turns clockwise: exact pixel moves, no resampling.
    public struct Rotate: ImageTransforming {
        public enum Angle: Int, Sendable { case quarter = 90, half = 180, threeQuarters = 270 }
        public let angle: Angle
        public init(_ angle: Angle) { self.angle = angle }
        public var identifier: String { "rotate(\(angle.rawValue))" }

        public func transform(_ image: Image) throws -> Image {
            let swaps = angle != .half
            let width = swaps ? image.height : image.width, height = swaps ? image.width : image.height
            return try PixelMove.remap(image, width: width, height: height) { x, y in
                switch angle {
                case .quarter: (y, image.height - 1 - x)            // output (x, y) comes from source (y, H-1-x)
                case .half: (image.width - 1 - x, image.height - 1 - y)
                case .threeQuarters: (image.width - 1 - y, x)
                }
            }
        }
    }

    /// Mirror: horizontal exchanges left and right, vertical exchanges top and bottom.
    public struct Flip: ImageTransforming {
        public enum Axis: String, Sendable { case horizontal, vertical }
        public let axis: Axis
        public init(_ axis: Axis) { self.axis = axis }
        public var identifier: String { "flip(\(axis.rawValue))" }

        public func transform(_ image: Image) throws -> Image {
            try PixelMove.remap(image, width: image.width, height: image.height) { x, y in
                axis == .horizontal ? (image.width - 1 - x, y) : (x, image.height - 1 - y)
            }
        }
    }

    /// A rectangle of the image, clipped to it; an empty intersection is an error rather than a 0-pixel image.
    public struct Crop: ImageTransforming {
        public let x: Int, y: Int, width: Int, height: Int
        public init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x; self.y = y; self.width = width; self.height = height
        }
        public var identifier: String { "crop(\(x),\(y),\(width)x\(height))" }

        public func transform(_ image: Image) throws -> Image {
            let left = max(0, x), top = max(0, y)
            let right = min(image.width, x + width), bottom = min(image.height, y + height)
            guard right > left, bottom > top else {
                throw PipelineError.invalidArgument("crop \(width)x\(height)+\(x)+\(y) lies outside the \(image.width)x\(image.height) image")
            }
            return try PixelMove.remap(image, width: right - left, height: bottom - top) { cx, cy in (left + cx, top + cy) }
        }
    }
}

/// Output pixel (x, y) ← source pixel `source(x, y)`, whole pixels of either layout, metadata and colour kept.
enum PixelMove {
    static func remap(_ image: Image, width: Int, height: Int, _ source: (Int, Int) -> (Int, Int)) throws -> Image {
        let output = try Image(width: width, height: height, pixelFormat: image.pixelFormat, alphaMode: image.alphaMode)
        let bytes = image.pixelFormat.bytesPerPixel
        image.withUnsafeRows { input in
            output.withUnsafeMutableRows { target in
                for y in 0..<height {
                    let row = target + y * output.stride
                    for x in 0..<width {
                        let (sx, sy) = source(x, y)
                        (row + x * bytes).update(from: input + sy * image.stride + sx * bytes, count: bytes)
                    }
                }
            }
        }
        return output.with(color: image.color).with(durationMilliseconds: image.durationMilliseconds, index: image.index)
    }
}
