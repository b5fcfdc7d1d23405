import PipelineHost

/// The processing a user asked for, from the CLI's flags or a service URL's options, and the one place that turns
/// it into a transformer chain, in one fixed order whatever the order given: crop → rotate → flip → grayscale →
/// blur → sharpen → circle or rounded corners → padding → size bound → watermark → flatten. Geometry first (so a
/// crop names pixels of the decoded image), shapes after (so a blur does not soften their edges into the
/// background), the watermark last but for flattening (drawn on the final canvas at its final size, never blurred,
/// cropped or scaled with the image). Crops and the circle are
/// placed by `gravity` as it stands once everything is read.
struct ProcessingRecipe {
    enum CropRegion {
        /// At most this size, placed by gravity.
        case box(PixelSize)
        /// At most this size, placed by its own gravity or focus (imgproxy's crop:W:H:GRAVITY).
        case placedBox(PixelSize, gravity: Gravity, focus: CropFocus?)
        /// The largest region of width:height, placed by gravity.
        case aspect(Int, Int)
        case rectangle(x: Int, y: Int, width: Int, height: Int)
    }

    var crops: [CropRegion] = []
    var gravity: Gravity = .center
    /// Places the crops by content or a point instead of `gravity` (the circle keeps the gravity).
    var focus: CropFocus?
    var rotation: ImageTransformers.Rotate.Angle?
    var flips: [ImageTransformers.Flip.Axis] = []
    var grayscale = false
    var blurSigma: Double?
    var sharpen = false
    /// Takes precedence over `cornerRadius`.
    var circle = false
    var cornerRadius: Double?
    var flattenOnto: RGBAColor?
    /// Padding and extension, applied after the other steps (before flattening), filled with `padFill`.
    var pads: [ImageTransformers.Pad.Amount] = []
    var padFill: RGBAColor?
    /// A last reduction (the service's --max-size bound), before the watermark so that it does not shrink the mark.
    var bound: (any ImageTransforming)?
    var watermark: ImageTransformers.Watermark?

    var transformers: [any ImageTransforming] {
        var chain: [any ImageTransforming] = crops.map { region in
            switch region {
            case .box(let size): ImageTransformers.Crop(size: size, gravity: gravity, focus: focus)
            case .placedBox(let size, let gravity, let focus): ImageTransformers.Crop(size: size, gravity: gravity, focus: focus)
            case .aspect(let width, let height): ImageTransformers.Crop(aspectRatio: width, height, gravity: gravity, focus: focus)
            case .rectangle(let x, let y, let width, let height): ImageTransformers.Crop(x: x, y: y, width: width, height: height)
            }
        }
        if let rotation { chain.append(ImageTransformers.Rotate(rotation)) }
        chain += flips.map { ImageTransformers.Flip($0) }
        if grayscale { chain.append(ImageTransformers.Grayscale()) }
        if let blurSigma { chain.append(ImageTransformers.GaussianBlur(sigma: blurSigma)) }
        if sharpen { chain.append(ImageTransformers.Sharpen()) }
        if circle {
            chain.append(ImageTransformers.Circle(gravity: gravity))
        } else if let cornerRadius {
            chain.append(ImageTransformers.RoundedCorners(radius: cornerRadius))
        }
        chain += pads.map { ImageTransformers.Pad($0, fill: padFill) }
        if let bound { chain.append(bound) }
        if let watermark { chain.append(watermark) }
        if let flattenOnto { chain.append(ImageTransformers.Flatten(background: flattenOnto)) }
        return chain
    }
}
