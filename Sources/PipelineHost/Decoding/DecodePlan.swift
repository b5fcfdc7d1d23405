/// What a coder is asked for and how the host finishes its output, decided before the decode in the process that
/// runs it (the host, or an isolated worker), so both sides make the same choice from the same facts.
///
/// A trim (`options.trim`) asks every coder for the source's own size: the border is cut first, then placed.
///
/// Two requests need the source's size before the coder is called, and read it with the coder's probe (headers
/// only):
/// - a scale-down budget (`scaleDownLimitBytes`) without a size: the box that keeps the decode within it;
/// - an aspect-fill with a gravity other than the centre, or a focus, from a coder that renders at size (JPEG, SVG, PDF):
///   coders crop an aspect-fill centred, so the coder is asked for the size that covers the box and the host
///   cuts the box where the gravity says.
struct DecodePlan {
    let coderOptions: DecodeOptions
    let finishing: FinishingStep

    init(coder: PluginCoder, options: DecodeOptions, transformers: [any ImageTransforming] = [],
         probe: () throws -> ImageInfo) throws {
        let caps = coder.descriptor.capabilities
        var effective = options
        var info: ImageInfo?
        if effective.autoScaleMode {
            let facts = try probe()
            info = facts
            effective = effective.resolvingAutoScaleMode(sourceWidth: facts.width, sourceHeight: facts.height)
        }
        if effective.thumbnailSize == nil, let budget = effective.scaleDownLimitBytes, budget > 0 {
            let facts = try info ?? probe()
            info = facts
            effective.thumbnailSize = Self.box(width: facts.width, height: facts.height,
                                               bytesPerPixel: effective.highBitDepth && facts.bitDepth > 8 ? 8 : 4, budget: budget)
            effective.scaleMode = .fit
        }
        var coderOptions = effective
        var cover: PixelSize?
        var finishingCaps = caps
        if effective.trim != nil {
            // The border is found on the whole image and the box filled by what is left, so every coder decodes at
            // its own size (no shrink-on-load, which would leave the content smaller than the box once the border
            // is cut; a vector renders at its intrinsic size) and the host places the trimmed result.
            coderOptions.thumbnailSize = nil
            coderOptions.scaleMode = .fit
            finishingCaps.remove(.scales)
            // A vector's own size is no upper bound: what is left of it fills the box, as its render would.
            if caps.contains(.vector) { effective.allowUpscale = true }
        } else if caps.contains(.scales), effective.scaleMode == .aspectFill, effective.gravity != .center || effective.focus != nil,
           let box = effective.thumbnailSize, box.width > 0, box.height > 0 {
            let facts = try info ?? probe()
            let placement = Placement(sourceWidth: facts.width, sourceHeight: facts.height, request: box, mode: .aspectFill,
                                      allowUpscale: effective.allowUpscale || caps.contains(.vector))
            let coverWidth = max(placement.outputWidth, Int((Double(facts.width) * placement.scaleX).rounded()))
            let coverHeight = max(placement.outputHeight, Int((Double(facts.height) * placement.scaleY).rounded()))
            coderOptions.thumbnailSize = PixelSize(width: coverWidth, height: coverHeight)
            coderOptions.scaleMode = .fill
            cover = PixelSize(width: placement.outputWidth, height: placement.outputHeight)
        }
        self.coderOptions = coderOptions
        finishing = Self.finishing(options: effective, capabilities: finishingCaps, coverCrop: cover, transformers: transformers)
    }

    /// The one place a finishing step is made: a planned decode (above), each size finished from one full decode the
    /// host made itself (`SizesFromOneDecode`: one call's sizes and the image manager's shared decodes; a shared decode
    /// is made only for coders that do not scale, so it never needs a cover crop) and each frame of an animation.
    static func finishing(options: DecodeOptions, capabilities: CoderCapabilities, coverCrop: PixelSize? = nil,
                          transformers: [any ImageTransforming] = []) -> FinishingStep {
        FinishingStep(options: options, capabilities: capabilities, coverCrop: coverCrop, transformers: transformers)
    }

    /// The largest box of the source's aspect whose pixels take at most `budget` bytes (nil: the source fits).
    static func box(width: Int, height: Int, bytesPerPixel: Int, budget: Int) -> PixelSize? {
        let bytes = Double(width) * Double(height) * Double(bytesPerPixel)
        guard width > 0, height > 0, bytes > Double(budget) else { return nil }
        let k = (Double(budget) / bytes).squareRoot()
        var w = max(1, Int(Double(width) * k)), h = max(1, Int(Double(height) * k))
        while w * h * bytesPerPixel > budget, w > 1 || h > 1 { if w >= h { w -= 1 } else { h -= 1 } }
        return PixelSize(width: w, height: h)
    }

    /// Decodes with `coder` and finishes: the one way a decode runs, in the host and in a worker. `source`: the file
    /// read by ranges, when `bytes` is only its prefix.
    static func decode(_ bytes: UnsafeRawBufferPointer, coder: PluginCoder, options: DecodeOptions, context: CallContext,
                       transformers: [any ImageTransforming] = [], source: RangedSource? = nil) throws -> Image {
        let plan = try DecodePlan(coder: coder, options: options, transformers: transformers) {
            try coder.probe(bytes, options: options, source: source)
        }
        let raw = try coder.decodeRaw(bytes, options: plan.coderOptions, context: context, source: source)
        return try plan.finishing.apply(raw)
    }
}
