import PipelineHost

/// `thumbnail --presets FILE --preset NAME`: a batch rendered with the options a service preset names, read from
/// the same file `serve --presets` reads, so the thumbnails a build step writes ahead of time are the ones the
/// service would answer for `pr:NAME` (sizes, mode, gravity, trim, processing, watermark, quality, format).
///
/// A preset says how to render; the flags that say the same are refused beside it rather than merged, so no
/// reader has to know which of two spellings wins. The file's `default` preset applies first, as in serve.
struct BatchPreset {
    /// The preset's size, when it gives one.
    var size: PixelSize?
    var options: DecodeOptions
    var transformers: [any ImageTransforming]
    var format: String?
    var quality: Int?
    var formatQualities: [String: Int]
    var maxBytes: Int?
    var background: RGBAColor?
    /// kmd: (sm:, kcr:), when the preset says.
    var keepMetadata: MetadataPolicy?

    static let conflictingFlags = ["size", "mode", "upscale", "tint", "template", "quality", "max-bytes", "background", "keep-metadata", "crop", "gravity",
                                   "focus", "rotate", "flip", "grayscale", "blur", "sharpen", "radius", "circle", "flatten", "trim",
                                   "trim-color", "watermark-position", "watermark-opacity", "watermark-offset", "watermark-scale"]

    /// The preset `--preset` names (several chain, as `pr:A:B`), or nil without `--preset`.
    static func read(_ args: Arguments, coders: CodersManager) throws -> BatchPreset? {
        let names = args.all("preset").flatMap { $0.split(separator: ",").map(String.init) }
        guard !names.isEmpty else {
            if args.value("presets") != nil { throw UsageError("--presets FILE goes with --preset NAME") }
            return nil
        }
        guard let file = args.value("presets") else { throw UsageError("--preset NAME needs --presets FILE (the file serve --presets reads)") }
        if let flag = conflictingFlags.first(where: { args.value($0) != nil || args.flag($0) }) {
            throw UsageError("--\(flag) and --preset exclude each other: the preset says how to render")
        }
        for name in names where !Presets.isName(name) { throw UsageError("--preset names a preset (letters, digits, - and _), not '\(name)'") }
        let watermark = try args.value("watermark").map { try ProcessingArguments.watermark(file: $0, coders: coders) }
        let presets = try Presets(definitions: [], file: file, watermark: watermark)
        let parsed: ProcessingURL
        do {
            parsed = try ProcessingURL(path: "/-/pr:" + names.joined(separator: ":") + "/plain/batch", maxSide: 65535, presets: presets, watermark: watermark)
        } catch let failure as ProcessingURL.Failure {
            throw UsageError("--preset \(names.joined(separator: ",")): \(failure.message)")
        }
        return BatchPreset(size: parsed.options.thumbnailSize, options: parsed.options, transformers: parsed.transformers, format: parsed.format,
                           quality: parsed.quality, formatQualities: parsed.formatQualities, maxBytes: parsed.maxBytes, background: parsed.background,
                           keepMetadata: parsed.keepMetadata)
    }

    /// `options` (the command line's: page, limits, colour, password ...) with the preset's rendering choices.
    func applied(to given: DecodeOptions) -> DecodeOptions {
        var merged = options
        merged.thumbnailSize = nil
        merged.pageIndex = given.pageIndex
        merged.frameIndex = given.frameIndex
        merged.firstFrameOnly = given.firstFrameOnly
        merged.highBitDepth = given.highBitDepth
        merged.transparentBackground = given.transparentBackground
        merged.ignoreOrientation = given.ignoreOrientation
        merged.threads = given.threads
        merged.limits = given.limits
        merged.password = given.password
        merged.colorOutput = given.colorOutput
        merged.scaleDownLimitBytes = given.scaleDownLimitBytes
        return merged
    }

    /// The encode options for `format`: q:, else the preset's fq: for it; mb:, bg: and kmd: (none when unsaid, as a
    /// service started without --keep-metadata answers).
    func encodeOptions(_ given: EncodeOptions, format: String) -> EncodeOptions {
        var encode = given
        encode.quality = quality ?? formatQualities[ProcessingURL.formatName(format)]
        encode.maxBytes = maxBytes
        encode.background = background
        encode.keepMetadata = keepMetadata ?? .none
        return encode
    }
}
