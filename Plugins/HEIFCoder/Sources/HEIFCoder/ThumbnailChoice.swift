import PluginAPI
import PluginKit

/// Shrink-on-load: picks an embedded thumbnail that can stand in for the full image at the requested size.
///
/// The coder does not set IP_CODER_SCALES, so the host resamples whatever decode() returns to the requested box.
/// A thumbnail is therefore used only when that gives the same result as the full image would, up to resampling:
/// - it covers the drawn size (the host's placement on the full size; for aspect-fill the drawn source is larger than the
///   output) in both dimensions, so nothing is upscaled;
/// - the host's placement computed on the thumbnail's size yields the same output size as on the full size
///   (a thumbnail whose aspect was rounded differently would otherwise change the output by a pixel);
/// - its aspect ratio is within 3 % of the image's (no thumbnail that lacks the image's rotation or crop) and it
///   has alpha exactly when the image has.
/// Among those, the smallest wins (the cheapest decode).
enum ThumbnailChoice {
    struct Candidate {
        let handle: HEIFHandle
        let width: Int
        let height: Int
    }

    static let maxAspectDifference = 0.03

    static func choose(
        for image: HEIFHandle, size full: (width: Int, height: Int), thumbnails: [HEIFHandle],
        request view: DecodeRequestView, ignoringTransformations: Bool
    ) -> Candidate? {
        guard view.thumbnailSize != nil, full.width > 0, full.height > 0 else { return nil }
        let wanted = Host.place(sourceWidth: Double(full.width), sourceHeight: Double(full.height), options: view.options)
        let drawnWidth = Int(roundDimension(Double(full.width) * wanted.scale_x))
        let drawnHeight = Int(roundDimension(Double(full.height) * wanted.scale_y))
        let aspect = Double(full.width) / Double(full.height)
        let usable = thumbnails.compactMap { thumb -> Candidate? in
            let size = thumb.outputSize(ignoringTransformations: ignoringTransformations)
            guard size.width > 0, size.height > 0, size.width * size.height < full.width * full.height,
                  size.width >= drawnWidth, size.height >= drawnHeight,
                  abs(Double(size.width) / Double(size.height) / aspect - 1) <= maxAspectDifference,
                  thumb.hasAlpha == image.hasAlpha else { return nil }
            let placed = Host.place(sourceWidth: Double(size.width), sourceHeight: Double(size.height), options: view.options)
            guard placed.out_width == wanted.out_width, placed.out_height == wanted.out_height else { return nil }
            return Candidate(handle: thumb, width: size.width, height: size.height)
        }
        return usable.min { $0.width * $0.height < $1.width * $1.height }
    }
}
