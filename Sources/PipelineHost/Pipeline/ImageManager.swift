/// The pipeline's front door: URL or path in, image out (loader → coder → decode at size → finish).
///
/// Caching and coalescing of identical requests arrive with the caching issue; this type is where they go.
public final class ImageManager: Sendable {
    public let host: PluginHost

    public init(host: PluginHost) { self.host = host }

    /// Loads and decodes `url` (a URL or an absolute path) with `options`.
    public func image(for url: String, options: DecodeOptions = DecodeOptions(), loadOptions: LoadOptions = LoadOptions()) async throws -> Image {
        let (bytes, options) = try await fetch(url, options: options, loadOptions: loadOptions)
        let context = CallContext(limits: options.limits)
        return try await withTaskCancellationHandler {
            try host.coders.decode(data: bytes, options: options, cancellation: context)
        } onCancel: {
            context.cancel()
        }
    }

    /// Convenience matching SDWebImage's most common call: a thumbnail of a URL, optionally tinted as a template.
    public func image(for url: String, thumbnailPixelSize: PixelSize, tint: RGBAColor? = nil) async throws -> Image {
        try await image(for: url, options: DecodeOptions(thumbnailSize: thumbnailPixelSize, tint: tint, template: tint != nil))
    }

    /// Every frame of an animation (bounded by `options.limits.maxFrames`), or the one image of a still source.
    public func frames(for url: String, options: DecodeOptions = DecodeOptions(), loadOptions: LoadOptions = LoadOptions()) async throws -> [Image] {
        let (bytes, options) = try await fetch(url, options: options, loadOptions: loadOptions)
        guard let coder = host.coders.coder(forData: bytes), coder.descriptor.capabilities.contains(.animated) else {
            return [try host.coders.decode(data: bytes, options: options)]
        }
        return try host.coders.frames(data: bytes, options: options).readAll()
    }

    /// Reads a source's facts without decoding it.
    public func info(for url: String, options: DecodeOptions = DecodeOptions(), loadOptions: LoadOptions = LoadOptions()) async throws -> ImageInfo {
        let (bytes, options) = try await fetch(url, options: options, loadOptions: loadOptions)
        return try host.coders.probe(data: bytes, options: options)
    }

    private func fetch(_ url: String, options: DecodeOptions, loadOptions: LoadOptions) async throws -> ([UInt8], DecodeOptions) {
        var loadOptions = loadOptions
        if options.limits.maxInputBytes > 0 {
            loadOptions.maxBytes = min(loadOptions.maxBytes ?? Int.max, options.limits.maxInputBytes)
        }
        let bytes = try await host.loaders.load(url: url, options: loadOptions)
        var options = options
        if options.sourceURL == nil { options.sourceURL = SourceURL.fileURL(for: url) }
        return (bytes, options)
    }
}

/// The source-URL hint coders receive: a file: URL for local files, the URL itself otherwise.
enum SourceURL {
    static func fileURL(for url: String) -> String {
        guard url.hasPrefix("/") else { return url }
        var encoded = "file://"
        for byte in url.utf8 {
            let c = Character(UnicodeScalar(byte))
            if c.isASCII && (c.isLetter || c.isNumber || "/-._~".contains(c)) { encoded.append(c) }
            else { encoded += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true) }
        }
        return encoded
    }
}
