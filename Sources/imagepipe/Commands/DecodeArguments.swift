import PipelineHost

/// The decode options shared by `info` and `render`.
enum DecodeArguments {
    static let section = OptionSection("Decode options:", column: 22, [
        .option(Option("size", value: "WxH", help: "output box in pixels; 0 on one side = derived from the other (e.g. 1024x0)")),
        .option(Option("mode", value: "MODE", help: "fit (default: keep aspect, inside the box), fill (stretch), aspect-fill (cover, crop centred)")),
        .option(Option("upscale", help: "let raster sources grow beyond their size in fit/aspect-fill (vectors always render at size)")),
        .option(Option("tint", value: "COLOR", help: "#rgb, #rrggbb, #rrggbbaa or a CSS colour name; vector coders use it as currentColor")),
        .option(Option("template", help: "output = tint colour with the image's alpha (needs --tint)")),
        .option(Option("page", value: "N", help: "page of a document, counted from 0 (default 0; 'imagepipe info' lists them)")),
        .option(Option("frame", value: "N", help: "frame of an animation, counted from 0 (default 0)")),
        .option(Option("first-frame-only", help: "decode only the first frame of animations")),
        .option(Option("transparent", help: "documents: transparent instead of white page background")),
        .option(Option("high-bit-depth", help: "16-bit output for sources with more than 8 bits per channel")),
        .option(Option("no-orientation", help: "do not apply EXIF/irot/imir orientation")),
        .option(Option("colorspace", value: "SPACE", help: """
                srgb (default): convert from the source's ICC profile, CICP or PNG colour chunks to sRGB
                (PQ/HLG HDR tone-mapped to SDR); p3: convert to Display P3 and embed its profile;
                keep: leave the pixels as they are and embed the source's profile (or write its CICP in
                AVIF/HEIF, so 10-bit PQ stays PQ)
                """)),
        .option(Option("keep-profile", help: "the same as --colorspace keep")),
        .option(Option("password", value: "TEXT", help: "password of an encrypted document")),
        .option(Option("max-pixels", value: "N", help: "refuse decodes, outputs and intermediates larger than N pixels (default 268435456)")),
        .option(Option("max-memory", value: "SIZE", help: """
                pixel memory one request may hold: decoded, intermediate and output buffers, and the
                isolated worker's address space (default 2G; suffixes K, M, G)
                """)),
        .option(Option("threads", value: "N", help: "decoder threads (default: the coder's choice)")),
    ])

    /// `sizeGiven: false`: the command reads --size itself (thumbnail's list of sizes).
    static func options(_ args: Arguments, sizeGiven: Bool = true) throws -> DecodeOptions {
        var options = DecodeOptions()
        if sizeGiven, let size = args.value("size") {
            guard let parsed = PixelSize(parsing: size) else { throw UsageError("--size must be WxH, e.g. 256x256 or 1024x0, not '\(size)'") }
            options.thumbnailSize = parsed
        }
        if let mode = args.value("mode") {
            guard let parsed = ScaleMode(rawValue: mode) else { throw UsageError("--mode must be fit, fill or aspect-fill, not '\(mode)'") }
            options.scaleMode = parsed
        }
        if let tint = args.value("tint") {
            guard let color = RGBAColor(parsing: tint) else {
                throw UsageError("--tint must be #rgb, #rrggbb, #rrggbbaa or a CSS colour name, not '\(tint)'")
            }
            options.tint = color
        }
        options.template = args.flag("template")
        if options.template && options.tint == nil { throw UsageError("--template needs --tint COLOR") }
        options.pageIndex = try args.int("page", range: 0...1_000_000) ?? 0
        options.frameIndex = try args.int("frame", range: 0...10_000_000) ?? 0
        options.allowUpscale = args.flag("upscale")
        options.transparentBackground = args.flag("transparent")
        options.highBitDepth = args.flag("high-bit-depth")
        options.firstFrameOnly = args.flag("first-frame-only")
        options.ignoreOrientation = args.flag("no-orientation")
        options.password = args.value("password")
        if let maxPixels = try args.int("max-pixels", range: 1...Int(Int32.max) * 64) { options.limits.maxPixels = maxPixels }
        if let budget = try memorySize(args) { options.limits.maxMemoryBytes = budget }
        options.threads = try args.int("threads", range: 0...256) ?? 0
        options.colorOutput = try colorOutput(args)
        try ProcessingArguments.apply(args, to: &options)
        return options
    }

    /// `--colorspace srgb|p3|keep` or `--keep-profile` (not both with different meanings).
    static func colorOutput(_ args: Arguments) throws -> ColorOutput {
        var output = ColorOutput.srgb
        if let text = args.value("colorspace") {
            guard let parsed = ColorOutput(rawValue: text.lowercased()) ?? (text.lowercased() == "display-p3" ? .displayP3 : nil) else {
                throw UsageError("--colorspace must be srgb, p3 or keep, not '\(text)'")
            }
            output = parsed
        }
        if args.flag("keep-profile") {
            if args.value("colorspace") != nil, output != .keep {
                throw UsageError("--keep-profile contradicts --colorspace \(output.rawValue)")
            }
            output = .keep
        }
        return output
    }

    /// `--max-memory`: bytes, or a number with K, M or G (powers of 1024), at least 1 MiB.
    static func memorySize(_ args: Arguments) throws -> Int? {
        guard let text = args.value("max-memory") else { return nil }
        guard let bytes = byteSize(text), bytes >= 1 << 20 else {
            throw UsageError("--max-memory must be a size of at least 1M, such as 512M or 4G, not '\(text)'")
        }
        return bytes
    }

    /// Bytes, or a number with K, M or G (powers of 1024; a trailing B or iB is allowed); nil when malformed.
    static func byteSize(_ text: String) -> Int? {
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = Substring(text.uppercased())
        if digits.hasSuffix("B") || digits.hasSuffix("I") { digits = digits.dropLast(digits.hasSuffix("IB") ? 2 : 1) }
        var multiplier = 1
        if let last = digits.last, let unit = units[last] { multiplier = unit; digits = digits.dropLast() }
        guard let number = Int(digits), number > 0, number <= (1 << 50) / multiplier else { return nil }
        return number * multiplier
    }

    /// A URL stays as it is; a path becomes absolute (loaders take absolute paths).
    static func source(_ text: String) -> String {
        if text.hasPrefix("/") || isURL(text) { return text }
        return PluginSearchPath.absolutePath(text)
    }

    /// A URL rather than a path: a scheme with an authority (`http://`, `file://`), or a `data:` URL (RFC 2397 has
    /// none). A file whose name starts with "data:" is named with a folder, `./data:x`.
    static func isURL(_ text: String) -> Bool {
        text.contains("://") || text.prefix(5).lowercased() == "data:"
    }
}
