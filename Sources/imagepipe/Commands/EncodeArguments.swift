import PipelineHost

/// The encode options shared by `render` and `thumbnail`.
enum EncodeArguments {
    static let quality = Option("quality", value: "N", help: "encoder quality 1...100 (default: the encoder's)")
    static let lossless = Option("lossless", help: "lossless encoding where the format offers it")
    static let encoderOption = Option("encoder-option", value: "KEY=VALUE", help: "a setting of the output format's own encoder, repeatable (TIFF: compression=deflate|lzw|none); an unknown key is an error")
    static let maxBytes = Option("max-bytes", value: "SIZE", help: "the highest quality whose output fits in SIZE bytes (50K, 200000; at most 8 encodes; formats without a quality ignore it)")
    static let keepMetadata = Option("keep-metadata", value: "none|copyright|all", help: "what the output keeps of the source's Exif and XMP: none (default), copyright (Exif Artist and Copyright), all (Orientation reset to 1)")
    static let background = Option("background", value: "COLOR", help: "what transparent pixels become in a format without alpha, JPEG (default white)")

    /// `--keep-metadata` (render, thumbnail, and serve's default for URLs), nil when not given.
    static func keepMetadata(_ args: Arguments) throws -> MetadataPolicy? {
        guard let text = args.value("keep-metadata") else { return nil }
        guard let policy = MetadataPolicy(rawValue: text) else { throw UsageError("--keep-metadata takes none, copyright or all, not '\(text)'") }
        return policy
    }

    static func options(_ args: Arguments) throws -> EncodeOptions {
        var options = EncodeOptions(quality: try args.int("quality", range: 1...100), lossless: args.flag("lossless"))
        if let text = args.value("background") {
            guard var colour = RGBAColor(parsing: text) else {
                throw UsageError("--background must be #rgb, #rrggbb or a CSS colour name, not '\(text)'")
            }
            colour.alpha = 255  // a background under transparency is opaque by definition
            options.background = colour
        }
        if let text = args.value("max-bytes") {
            guard let bytes = DecodeArguments.byteSize(text), bytes >= 64 else { throw UsageError("--max-bytes must be a size of at least 64 bytes (50K, 200000), not '\(text)'") }
            options.maxBytes = bytes
        }
        if let policy = try keepMetadata(args) { options.keepMetadata = policy }
        for setting in args.all("encoder-option") {
            guard let equals = setting.firstIndex(of: "="), equals != setting.startIndex, !setting.contains("\n") else {
                throw UsageError("--encoder-option takes KEY=VALUE (e.g. compression=lzw), not '\(setting)'")
            }
            options.settings[String(setting[..<equals])] = String(setting[setting.index(after: equals)...])
        }
        return options
    }
}
