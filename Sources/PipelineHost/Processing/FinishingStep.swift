/// What the host does to a coder's output, in one order, for every path: a one-shot decode, each size of a
/// batch, each frame of an animation, each incremental preview, and a decode in an isolated worker.
///
/// 0. trim: cut a uniform border (`options.trim`) off the coder's output, which is then full size (see `DecodePlan`);
/// 1. placement: resample to the requested box when the coder did not (`.scales`), the overflow of an
///    aspect-fill cut per `gravity` (or `focus`); or cut a coder's cover-sized render to the box (see `DecodePlan`);
/// 2. colour: convert from what the source states to `options.colorOutput` (after resampling: fewer pixels);
/// 3. tint: the template tint when the coder did not tint (`.tints`);
/// 4. the request's transformers, in order.
///
/// The step holds no reference to a coders manager: everything it needs is a value, so a worker process runs
/// exactly this code on its own side and the pixels are the same wherever a decode runs.
struct FinishingStep: Sendable {
    private(set) var options: DecodeOptions
    /// The coder rendered at the box itself (JPEG shrink-on-load, vectors, documents).
    let coderScales: Bool
    /// The coder applied the template tint itself (vector coders tint as they render).
    let coderTints: Bool
    /// Set when the coder was asked for a render covering the box (gravity on a scaling coder): cut to this size.
    let coverCrop: PixelSize?
    let transformers: [any ImageTransforming]

    init(options: DecodeOptions, capabilities: CoderCapabilities, coverCrop: PixelSize? = nil,
         transformers: [any ImageTransforming] = []) {
        self.options = options
        coderScales = capabilities.contains(.scales)
        coderTints = capabilities.contains(.tints)
        self.coverCrop = coverCrop
        self.transformers = transformers
    }

    /// Every buffer the step is about to allocate is checked first against the request's pixel limit (outputs and
    /// upscales, not only what the coder decoded) and memory budget (the decoded image, the resampler's
    /// intermediate rows and the output held at once), so an oversized request fails at once instead of running
    /// for seconds and gigabytes.
    func apply(_ image: Image) throws -> Image {
        if options.autoScaleMode {
            // A full-size decode finished for a size (the planned decode resolved it from the probe already).
            var resolved = self
            resolved.options = options.resolvingAutoScaleMode(sourceWidth: image.width, sourceHeight: image.height)
            return try resolved.apply(image)
        }
        let limits = options.limits
        var result = image
        if let trim = options.trim { result = try ImageTransformers.Trim(trim).transform(result) }
        result = try place(result)
        if !options.template || options.tint == nil {
            let eightBit = !options.highBitDepth && result.pixelFormat == .rgba16
            result = try ColorConversion.apply(result, output: options.colorOutput, eightBit: eightBit, limits: limits)
        }
        if options.template, let tint = options.tint, !coderTints {
            try limits.checkMemory(holding: result.byteCount, adding: result.byteCount)
            result = try ImageTransformers.Tint.template(result, color: tint)
        }
        return try Self.transform(result, by: transformers, limits: limits)
    }

    /// The request's transformers alone (the image manager's processing stage runs them after an isolated decode,
    /// whose worker ran steps 1 to 3).
    static func transform(_ image: Image, by transformers: [any ImageTransforming], limits: DecodeLimits) throws -> Image {
        var result = image
        for transformer in transformers {
            try limits.checkMemory(holding: result.byteCount, adding: result.byteCount)
            result = try transformer.transform(result)
            try limits.checkOutput(width: result.width, height: result.height)
        }
        return result
    }

    private func place(_ image: Image) throws -> Image {
        let limits = options.limits
        if let cover = coverCrop {
            let crop = ImageTransformers.Crop(size: cover, gravity: options.gravity, focus: options.focus)
            return image.width == cover.width && image.height == cover.height ? image : try crop.transform(image)
        }
        guard !coderScales, options.thumbnailSize != nil else { return image }
        if options.scaleMode == .aspectFill, let focus = options.focus { return try cover(image, focus: focus) }
        let placement = Placement(sourceWidth: image.width, sourceHeight: image.height, request: options.thumbnailSize,
                                  mode: options.scaleMode, allowUpscale: options.allowUpscale)
            .placed(by: options.scaleMode == .aspectFill ? options.gravity : .center, sourceWidth: image.width, sourceHeight: image.height)
        guard !placement.isIdentity || placement.outputWidth != image.width || placement.outputHeight != image.height else {
            return image
        }
        try limits.checkOutput(width: placement.outputWidth, height: placement.outputHeight)
        try limits.checkMemory(holding: image.byteCount, adding: ImageTransformers.Resize.workingBytes(image, to: placement))
        return try ImageTransformers.Resize.resample(image, to: placement)
    }

    /// An aspect-fill placed by a focus: the image resampled to cover the box whole, then the box cut where the
    /// focus says (the content strategies need the covering image to look at, as `vips thumbnail --smartcrop`).
    private func cover(_ image: Image, focus: CropFocus) throws -> Image {
        let limits = options.limits
        let fill = Placement(sourceWidth: image.width, sourceHeight: image.height, request: options.thumbnailSize,
                             mode: .aspectFill, allowUpscale: options.allowUpscale)
        let coverWidth = max(fill.outputWidth, Int((Double(image.width) * fill.scaleX).rounded()))
        let coverHeight = max(fill.outputHeight, Int((Double(image.height) * fill.scaleY).rounded()))
        var covering = image
        if coverWidth != image.width || coverHeight != image.height {
            let placement = Placement(sourceWidth: image.width, sourceHeight: image.height,
                                      request: PixelSize(width: coverWidth, height: coverHeight), mode: .fill, allowUpscale: true)
            try limits.checkOutput(width: placement.outputWidth, height: placement.outputHeight)
            try limits.checkMemory(holding: image.byteCount, adding: ImageTransformers.Resize.workingBytes(image, to: placement))
            covering = try ImageTransformers.Resize.resample(image, to: placement)
        }
        return try ImageTransformers.Crop(size: PixelSize(width: fill.outputWidth, height: fill.outputHeight), focus: focus).transform(covering)
    }
}
