import PluginAPI

/// The one rule for shrink-on-load from a smaller stored copy of an image (a HEIF embedded thumbnail, a TIFF
/// pyramid level): the copy may stand in for the full image only when that gives the full image's result up to
/// resampling, because the host resamples whatever the coder returns to the requested box.
///
/// A copy qualifies when it is smaller than the full image, covers the size the host's placement draws from the
/// full image in both dimensions (for aspect-fill that is larger than the output), gives the same output size when
/// placed itself (a copy whose aspect was rounded differently would otherwise change the output by a pixel), and has
/// the full image's aspect within `maxAspectDifference` (so no copy that lacks a rotation or a crop). The smallest
/// qualifying copy is the cheapest decode.
public struct StandIn {
    public static let maxAspectDifference = 0.03

    private let full: (width: Double, height: Double)
    private let options: DecodeOptionsCopy
    private let wanted: ip_placement
    private let drawn: (width: Double, height: Double)

    /// nil when the request has no thumbnail size or the full image has no area: nothing can stand in.
    public init?(full width: Int, _ height: Int, request view: DecodeRequestView) {
        guard view.thumbnailSize != nil, width > 0, height > 0 else { return nil }
        full = (Double(width), Double(height))
        options = view.options
        wanted = Host.place(sourceWidth: full.width, sourceHeight: full.height, options: options)
        drawn = (Double(roundDimension(full.width * wanted.scale_x)), Double(roundDimension(full.height * wanted.scale_y)))
    }

    /// Whether a copy of `width` x `height` (in the same orientation as the full size) may stand in.
    public func accepts(width: Int, height: Int) -> Bool {
        let (w, h) = (Double(width), Double(height))
        guard w > 0, h > 0, w * h < full.width * full.height, w >= drawn.width, h >= drawn.height,
              abs(w / h / (full.width / full.height) - 1) <= Self.maxAspectDifference else { return false }
        let placed = Host.place(sourceWidth: w, sourceHeight: h, options: options)
        return placed.out_width == wanted.out_width && placed.out_height == wanted.out_height
    }

    /// The block side for a reduce-while-decoding (BoxShrink: `width / k` by `height / k` block averages): the
    /// largest k whose reduction still leaves at least twice the drawn size in both dimensions — the host's own rule
    /// before its Lanczos pass, which then has at most 4:1 left — and may stand in; 1 when nothing smaller may.
    /// With `step`, only multiples of it are considered (AVIF's subsampled chroma is averaged in blocks of k / 2).
    public func blockFactor(multipleOf step: Int = 1) -> Int {
        var factor = Int(min(full.width / drawn.width, full.height / drawn.height) / 2)
        factor -= factor % step
        while factor >= 2, !accepts(width: Int(full.width) / factor, height: Int(full.height) / factor) { factor -= step }
        return max(1, factor)
    }

    /// The smallest of `candidates` that may stand in, by the size `size` gives each.
    public func smallest<Candidate>(of candidates: [Candidate], size: (Candidate) -> (width: Int, height: Int)) -> Candidate? {
        candidates.filter { let s = size($0); return accepts(width: s.width, height: s.height) }
            .min { size($0).width * size($0).height < size($1).width * size($1).height }
    }
}
