import PipelineHost

/// The encode options shared by `render` and `thumbnail`.
enum EncodeArguments {
    static let valued: Set<String> = ["quality", "background"]
    static let flags: Set<String> = ["lossless"]

    static func options(_ args: Arguments) throws -> EncodeOptions {
        var options = EncodeOptions(quality: try args.int("quality", range: 1...100), lossless: args.flag("lossless"))
        if let text = args.value("background") {
            guard var colour = RGBAColor(parsing: text) else {
                throw UsageError("--background must be #rgb, #rrggbb or a CSS colour name, not '\(text)'")
            }
            colour.alpha = 255  // a background under transparency is opaque by definition
            options.background = colour
        }
        return options
    }
}
