extension ImageTransformers {
    /// Quarter turns clockwise: exact pixel moves, no resampling.
    public struct Rotate: ImageTransforming {
        public enum Angle: Int, Sendable { case quarter = 90, half = 180, threeQuarters = 270 }
        public let angle: Angle
        public init(_ angle: Angle) { self.angle = angle }
        public var key: TransformKey { TransformKey("rotate", ["": .int(angle.rawValue)]) }

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
        public var key: TransformKey { TransformKey("flip", ["": .text(axis.rawValue)]) }

        public func transform(_ image: Image) throws -> Image {
            try PixelMove.remap(image, width: image.width, height: image.height) { x, y in
                axis == .horizontal ? (image.width - 1 - x, y) : (x, image.height - 1 - y)
            }
        }
    }

    /// A part of the image: a rectangle (clipped to the image), a size placed by gravity, or the largest region of
    /// an aspect ratio placed by gravity (a 16:9 banner from a portrait photo). An empty result is an error rather
    /// than a 0-pixel image.
    public struct Crop: ImageTransforming {
        public enum Region: Sendable, Hashable {
            case rectangle(x: Int, y: Int, width: Int, height: Int)
            /// At most this size (a smaller image keeps its side), placed by gravity.
            case size(PixelSize, Gravity)
            /// The largest region of width:height, placed by gravity.
            case aspectRatio(width: Int, height: Int, Gravity)
        }
        public let region: Region
        /// Places a box or aspect region by the content or a point instead of its gravity (a rectangle stays put).
        public let focus: CropFocus?

        public init(x: Int, y: Int, width: Int, height: Int) {
            region = .rectangle(x: x, y: y, width: width, height: height)
            focus = nil
        }
        public init(size: PixelSize, gravity: Gravity = .center, focus: CropFocus? = nil) {
            region = .size(size, gravity)
            self.focus = focus
        }
        public init(aspectRatio width: Int, _ height: Int, gravity: Gravity = .center, focus: CropFocus? = nil) {
            region = .aspectRatio(width: width, height: height, gravity)
            self.focus = focus
        }

        public var key: TransformKey {
            let focus = self.focus.map { TransformKey.Value.text($0.keyText) } ?? .text("gravity")
            switch region {
            case .rectangle(let x, let y, let w, let h): return TransformKey("crop", ["": .text("\(w)x\(h)+\(x)+\(y)")])
            case .size(let size, let gravity):
                return self.focus == nil ? TransformKey("crop", ["": .size(size), "gravity": .text(gravity.rawValue)])
                    : TransformKey("crop", ["": .size(size), "focus": focus])
            case .aspectRatio(let w, let h, let gravity):
                return self.focus == nil ? TransformKey("crop", ["aspect": .text("\(w):\(h)"), "gravity": .text(gravity.rawValue)])
                    : TransformKey("crop", ["aspect": .text("\(w):\(h)"), "focus": focus])
            }
        }

        /// The rectangle this crop takes from an image of `width` x `height` (before clipping).
        func rectangle(width: Int, height: Int) throws -> (x: Int, y: Int, width: Int, height: Int) {
            switch region {
            case .rectangle(let x, let y, let w, let h):
                return (x, y, w, h)
            case .size(let size, let gravity):
                let w = size.width > 0 ? min(size.width, width) : width, h = size.height > 0 ? min(size.height, height) : height
                return (gravity.origin(window: w, total: width, vertical: false), gravity.origin(window: h, total: height, vertical: true), w, h)
            case .aspectRatio(let rw, let rh, let gravity):
                guard rw > 0, rh > 0 else { throw PipelineError.invalidArgument("a crop's aspect ratio needs two positive numbers, not \(rw):\(rh)") }
                // The largest rw:rh box inside the image, in whole pixels, rounded to the nearest.
                var w = width, h = Int((Double(width) * Double(rh) / Double(rw)).rounded())
                if h > height { h = height; w = Int((Double(height) * Double(rw) / Double(rh)).rounded()) }
                w = max(1, min(w, width)); h = max(1, min(h, height))
                return (gravity.origin(window: w, total: width, vertical: false), gravity.origin(window: h, total: height, vertical: true), w, h)
            }
        }

        public func transform(_ image: Image) throws -> Image {
            var r = try rectangle(width: image.width, height: image.height)
            if let focus {
                if case .rectangle = region {} else { (r.x, r.y) = try focus.origin(of: r.width, r.height, in: image) }
            }
            let left = max(0, r.x), top = max(0, r.y)
            let right = min(image.width, r.x + r.width), bottom = min(image.height, r.y + r.height)
            guard right > left, bottom > top else {
                throw PipelineError.invalidArgument("crop \(r.width)x\(r.height)+\(r.x)+\(r.y) lies outside the \(image.width)x\(image.height) image")
            }
            if left == 0, top == 0, right == image.width, bottom == image.height { return image }
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
