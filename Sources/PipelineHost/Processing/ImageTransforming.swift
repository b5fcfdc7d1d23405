/// A host-side transformation applied after decoding (resize, tint, flip ...). Its identifier is part of the
/// cache key, so two requests that differ only by their transformers never share a cached result.
public protocol ImageTransforming: Sendable {
    /// Stable and unique per transformation and parameters, e.g. "flip(horizontal)".
    var identifier: String { get }
    func transform(_ image: Image) throws -> Image
}

extension ImageTransformers {
    /// Template tint as a transformer (for chains; `DecodeOptions.template` does the same at decode time).
    public struct TemplateTint: ImageTransforming {
        public let color: RGBAColor
        public init(color: RGBAColor) { self.color = color }
        public var identifier: String { "template-tint(\(color))" }
        public func transform(_ image: Image) throws -> Image { try Tint.template(image, color: color) }
    }

    /// Resize to a box with a scale mode, as a transformer.
    public struct ResizeTo: ImageTransforming {
        public let size: PixelSize
        public let mode: ScaleMode
        public init(size: PixelSize, mode: ScaleMode = .fit) { self.size = size; self.mode = mode }
        public var identifier: String { "resize(\(size),\(mode.rawValue))" }
        public func transform(_ image: Image) throws -> Image { try Resize.resample(image, to: size, mode: mode) }
    }
}
