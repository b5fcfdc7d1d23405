import PluginAPI
import PluginKit

/// Shrink-on-load: picks an embedded thumbnail that can stand in for the full image at the requested size.
///
/// The coder does not set IP_CODER_SCALES, so the host resamples whatever decode() returns to the requested box. A
/// thumbnail is used only by PluginKit's `StandIn` rule (smaller, covers the drawn size, the same output size, the
/// image's aspect within 3 %: no thumbnail that lacks the image's rotation or crop), and only when it has alpha
/// exactly when the image has. Among those, the smallest wins (the cheapest decode).
enum ThumbnailChoice {
    struct Candidate {
        let handle: HEIFHandle
        let width: Int
        let height: Int
    }

    static func choose(
        for image: HEIFHandle, size full: (width: Int, height: Int), thumbnails: [HEIFHandle],
        request view: DecodeRequestView, ignoringTransformations: Bool
    ) -> Candidate? {
        guard let rule = StandIn(full: full.width, full.height, request: view) else { return nil }
        let candidates = thumbnails.filter { $0.hasAlpha == image.hasAlpha }.map { thumb in
            let size = thumb.outputSize(ignoringTransformations: ignoringTransformations)
            return Candidate(handle: thumb, width: size.width, height: size.height)
        }
        return rule.smallest(of: candidates) { ($0.width, $0.height) }
    }
}
