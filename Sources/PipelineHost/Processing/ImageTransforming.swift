/// A host-side transformation applied after decoding (crop, blur, rotate ...).
///
/// Its `key` is part of the result's cache key, so two requests that differ only by their transformers never
/// share a cached result, and two that ask for the same thing always do. The key is typed (a name and named,
/// typed parameters serialised one way) rather than a string each transformer formats by hand, so that "same
/// parameters ⇒ same key" holds by construction and no two spellings of one operation exist.
public protocol ImageTransforming: Sendable {
    var key: TransformKey { get }
    func transform(_ image: Image) throws -> Image
}

extension ImageTransforming {
    /// The key as text, e.g. "blur(sigma=2)": what cache keys and batch stamps record.
    public var identifier: String { key.description }
}

/// The identity of a transformation: its name and its parameters, serialised canonically (parameters in the order
/// the transformer declares them, numbers in shortest round-trip form, colours as #rrggbbaa).
public struct TransformKey: Sendable, Hashable, CustomStringConvertible {
    public enum Value: Sendable, Hashable, CustomStringConvertible {
        case int(Int)
        case number(Double)
        case text(String)
        case color(RGBAColor)
        case size(PixelSize)
        /// A nested transformation (a chain's steps).
        case key(TransformKey)

        public var description: String {
            switch self {
            case .int(let value): String(value)
            // -0 and 0 draw the same; "\(Double)" is Swift's shortest round-trip form, stable across runs.
            case .number(let value): value == 0 ? "0" : value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
            case .text(let value): value
            case .color(let value): value.description
            case .size(let value): value.description
            case .key(let value): value.description
            }
        }
    }

    public let name: String
    public let parameters: [(String, Value)]

    public init(_ name: String, _ parameters: KeyValuePairs<String, Value> = [:]) {
        self.name = name
        self.parameters = parameters.map { ($0.key, $0.value) }
    }

    init(name: String, parameters: [(String, Value)]) {
        self.name = name
        self.parameters = parameters
    }

    public var description: String {
        var text = name
        text.reserveCapacity(name.count + 2 + parameters.count * 16)
        text.append("(")
        for (index, (label, value)) in parameters.enumerated() {
            if index > 0 { text.append(",") }
            if !label.isEmpty { text.append(label); text.append("=") }
            text.append(value.description)
        }
        text.append(")")
        return text
    }

    public static func == (a: TransformKey, b: TransformKey) -> Bool { a.description == b.description }
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }
}

extension ImageTransformers {
    /// Several transformations applied in order, as one (Nuke's `ImageProcessors.Composition`); its key lists its
    /// steps', so a chain and the same steps given one by one name the same result.
    public struct Chain: ImageTransforming {
        public let steps: [any ImageTransforming]
        public init(_ steps: [any ImageTransforming]) { self.steps = steps }
        public var key: TransformKey {
            TransformKey(name: "chain", parameters: steps.map { ("", TransformKey.Value.key($0.key)) })
        }
        public func transform(_ image: Image) throws -> Image {
            try steps.reduce(image) { try $1.transform($0) }
        }
    }

    /// Resize to a box with a scale mode, as a transformer; `gravity` places the crop of `.aspectFill`.
    public struct ResizeTo: ImageTransforming {
        public let size: PixelSize
        public let mode: ScaleMode
        public let gravity: Gravity
        public init(size: PixelSize, mode: ScaleMode = .fit, gravity: Gravity = .center) {
            self.size = size; self.mode = mode; self.gravity = gravity
        }
        public var key: TransformKey {
            gravity == .center ? TransformKey("resize", ["": .size(size), "mode": .text(mode.rawValue)])
                : TransformKey("resize", ["": .size(size), "mode": .text(mode.rawValue), "gravity": .text(gravity.rawValue)])
        }
        public func transform(_ image: Image) throws -> Image {
            guard mode == .aspectFill, gravity != .center else { return try Resize.resample(image, to: size, mode: mode) }
            return try Resize.cover(image, box: size, gravity: gravity, allowUpscale: true)
        }
    }
}
