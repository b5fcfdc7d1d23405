import FoundationEssentials

/// What picks the part of an image a crop keeps when a fixed gravity cannot know: the content (libvips' `attention`
/// and `entropy` strategies, imgproxy's `g:sm`) or a point the caller knows (imgproxy's focal point `g:fp:X:Y`).
///
/// It applies wherever a gravity places a window: the overflow of an aspect-fill, a crop box and an aspect crop.
/// The content strategies look at the image the window is cut from (for an aspect-fill, the render that covers the
/// box, as vips' thumbnail does), reduced first (attention to a 32 x 32 grid, entropy to at most `analysisSide`
/// pixels a side), so a crop costs a few milliseconds whatever the source's size.
public enum CropFocus: Sendable, Hashable, Codable {
    /// Edges, skin tones and saturated colour on a 32 x 32 grid, blurred over the window's size; the window is
    /// centred on the peak (vips' `attention`, the default of `vips smartcrop`).
    case attention
    /// Slices of least histogram entropy cut off the sides until the window is left (vips' `entropy`).
    case entropy
    /// The window centred as near this point as the image allows; fractions of the width and height (0...1).
    case point(x: Double, y: Double)

    /// imgproxy's `g:sm` and the CLI's `--gravity smart`: the attention strategy, under the name users ask for.
    public static var smart: CropFocus { .attention }

    /// The longest side the content strategies analyse.
    static let analysisSide = 512

    /// The key term (`focus=attention`, `focus=0.25,0.75`).
    public var keyText: String {
        switch self {
        case .attention: "attention"
        case .entropy: "entropy"
        case .point(let x, let y): "\(x),\(y)"
        }
    }

    /// Parses `attention`, `entropy` (and `smart`, imgproxy's name for attention) or `X,Y` fractions.
    public init?(parsing text: String) {
        switch text.lowercased() {
        case "attention", "smart", "sm": self = .attention
        case "entropy": self = .entropy
        default:
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double(String($0.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())) }
            guard parts.count == 2, let x = parts[0], let y = parts[1], (0...1).contains(x), (0...1).contains(y) else { return nil }
            self = .point(x: x, y: y)
        }
    }

    /// The top-left corner of a `width` x `height` window inside `image` (the window no larger than the image).
    public func origin(of width: Int, _ height: Int, in image: Image) throws -> (x: Int, y: Int) {
        let w = min(width, image.width), h = min(height, image.height)
        guard w < image.width || h < image.height else { return (0, 0) }
        switch self {
        case .point(let fx, let fy):
            let x = Int((fx * Double(image.width) - Double(w) / 2).rounded())
            let y = Int((fy * Double(image.height) - Double(h) / 2).rounded())
            return (min(max(0, x), image.width - w), min(max(0, y), image.height - h))
        case .attention:
            let grid = InterestSample.attentionGrid
            let sample = try InterestSample(image, resampledTo: PixelSize(width: grid, height: grid), mode: .fill)
            let point = sample.attentionPoint(window: w, h, imageWidth: image.width, imageHeight: image.height)
            return (min(max(0, point.x - w / 2), image.width - w), min(max(0, point.y - h / 2), image.height - h))
        case .entropy:
            let sample = try InterestSample(image, longestSide: Self.analysisSide)
            let sw = max(1, min(sample.width, Int((Double(w) * sample.scaleX).rounded())))
            let sh = max(1, min(sample.height, Int((Double(h) * sample.scaleY).rounded())))
            let (sx, sy) = sample.entropyOrigin(sw, sh)
            let x = Int((Double(sx) / sample.scaleX).rounded()), y = Int((Double(sy) / sample.scaleY).rounded())
            return (min(max(0, x), image.width - w), min(max(0, y), image.height - h))
        }
    }
}
