/// Which part of an image a crop keeps: the centre (the default), an edge or a corner (imgproxy's and
/// ImageMagick's gravity; `top` is ImageMagick's North).
public enum Gravity: String, Sendable, Hashable, Codable, CaseIterable {
    case center
    case top, bottom, left, right
    case topLeft = "top-left", topRight = "top-right", bottomLeft = "bottom-left", bottomRight = "bottom-right"

    /// Also accepts ImageMagick's compass names (north, south-east ...), case-insensitively.
    public init?(parsing text: String) {
        let lowered = String(text.lowercased().map { $0 == "_" ? "-" : $0 })
        let compass: [String: Gravity] = [
            "centre": .center, "north": .top, "south": .bottom, "west": .left, "east": .right,
            "north-west": .topLeft, "northwest": .topLeft, "north-east": .topRight, "northeast": .topRight,
            "south-west": .bottomLeft, "southwest": .bottomLeft, "south-east": .bottomRight, "southeast": .bottomRight]
        guard let gravity = Gravity(rawValue: lowered) ?? compass[lowered] else { return nil }
        self = gravity
    }

    /// Where a `width`-wide window starts in a `total`-wide extent (and the same for heights, with `vertical`): the
    /// gravity's fraction of the slack, in whole pixels (the centre rounds down).
    func origin(window: Int, total: Int, vertical: Bool) -> Int {
        let slack = max(0, total - window)
        return Int(Double(slack) * (vertical ? fractions.y : fractions.x))
    }

    /// The fraction of the overflow left before the kept part, across and down (a resampler's continuous placement
    /// uses it as it is).
    var fractions: (x: Double, y: Double) {
        let x: Double = switch self { case .left, .topLeft, .bottomLeft: 0; case .right, .topRight, .bottomRight: 1; default: 0.5 }
        let y: Double = switch self { case .top, .topLeft, .topRight: 0; case .bottom, .bottomLeft, .bottomRight: 1; default: 0.5 }
        return (x, y)
    }
}
