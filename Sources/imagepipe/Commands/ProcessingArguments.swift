import FoundationEssentials
import Glibc
import PipelineHost

/// The transformer flags shared by `render` and `thumbnail`, read into a `ProcessingRecipe` (which fixes the chain's
/// order, the same as a service URL's).
enum ProcessingArguments {
    static let section = OptionSection("Processing options (applied after decoding, in this order whatever the order given):", column: 22, [
        .option(Option("crop", value: "SPEC", help: """
                WxH (a box placed by --gravity), W:H (the largest region of that aspect ratio, placed by
                --gravity) or WxH+X+Y (a rectangle); clipped to the image
                """)),
        .option(Option("gravity", value: "G", help: """
                centre (default), top, bottom, left, right, top-left, top-right, bottom-left,
                bottom-right (or north, south-east ...), or by content: attention (smart: edges,
                skin and saturated colour, as vips smartcrop) or entropy: what --crop and --mode
                aspect-fill keep
                """)),
        .option(Option("focus", value: "X,Y", help: """
                a focal point (fractions of the width and height, 0,0 the top left): --crop and
                --mode aspect-fill keep the window centred on it as far as the image allows
                """)),
        .option(Option("trim", value: "THRESHOLD", help: """
                first cut away a uniform border (channels within THRESHOLD of it, 0-255; 10 is
                imgproxy's default), so --size sizes the content; the border's colour is the
                top-left pixel's unless --trim-color says
                """)),
        .option(Option("trim-color", value: "COLOR", help: "the border colour --trim cuts (as --background's)")),
        .option(Option("rotate", value: "DEG", help: "90, 180 or 270, clockwise")),
        .option(Option("flip", value: "AXIS", help: "horizontal, vertical or both")),
        .option(Option("grayscale", help: "Rec. 709 luma gray, alpha kept")),
        .option(Option("blur", value: "SIGMA", help: "Gaussian blur of SIGMA pixels (as ImageMagick's -blur 0xSIGMA)")),
        .option(Option("sharpen", help: "a light unsharp mask after the reduction (sigma 0.5, amount 1; -unsharp 0x0.5+1+0)")),
        .option(Option("radius", value: "R", help: "rounded corners of R pixels, anti-aliased (the output gets alpha)")),
        .option(Option("circle", help: "the centred square cut to a circle, anti-aliased (an avatar)")),
        .option(Option("flatten", help: """
                composite transparency onto --background (white by default) in every format; formats
                without alpha always do this
                """)),
        .option(Option("watermark", value: "FILE", help: """
                draw this image over the result (an SVG or PDF is rendered at the size drawn, never
                scaled as pixels); placed by --watermark-position, composited with premultiplied alpha
                """)),
        .option(Option("watermark-position", value: "P", help: """
                a gravity as --gravity's (centre by default; imgproxy's ce, no, soea ... too) or
                repeat: tiled over the whole image
                """)),
        .option(Option("watermark-opacity", value: "O", help: "0 to 1 (default 1)")),
        .option(Option("watermark-offset", value: "X,Y", help: """
                pixels inwards from the position's edges (from the centre: right and down); with
                repeat, the spacing between tiles
                """)),
        .option(Option("watermark-scale", value: "S", help: "the mark fits in S × the result's width and height (0 < S <= 1; default: its own size)")),
        .option(Option("scale-down-limit", value: "SIZE", help: """
                without --size: decode to at most SIZE pixel bytes, keeping the aspect ratio
                (e.g. 64M: a 100 MP photo comes out ~16 MP)
                """)),
    ])

    /// `--gravity`, `--focus`, `--trim` and `--scale-down-limit` into the decode options (they decide what the decode produces).
    static func apply(_ args: Arguments, to options: inout DecodeOptions) throws {
        options.gravity = try gravity(args)
        options.focus = try focus(args)
        if let text = args.value("trim") {
            guard let threshold = Double(text), threshold >= 0, threshold <= 255 else {
                throw UsageError("--trim must be a threshold from 0 to 255 (10 is usual), not '\(text)'")
            }
            var colour: RGBAColor?
            if let name = args.value("trim-color") {
                guard let parsed = RGBAColor(parsing: name) else { throw UsageError("--trim-color must be a colour (white, #f0f0f0), not '\(name)'") }
                colour = parsed
            }
            options.trim = TrimOptions(threshold: threshold, background: colour)
        } else if args.value("trim-color") != nil {
            throw UsageError("--trim-color goes with --trim THRESHOLD")
        }
        if let text = args.value("scale-down-limit") {
            guard let bytes = DecodeArguments.byteSize(text), bytes >= 1024 else {
                throw UsageError("--scale-down-limit must be a size such as 64M or 512K, not '\(text)'")
            }
            options.scaleDownLimitBytes = bytes
        }
    }

    static func gravity(_ args: Arguments) throws -> Gravity {
        guard let text = args.value("gravity") else { return .center }
        if let gravity = Gravity(parsing: text) { return gravity }
        guard ["attention", "smart", "entropy"].contains(text.lowercased()) else {
            throw UsageError("--gravity must be centre, top, bottom, left, right, top-left, top-right, bottom-left, bottom-right, attention (smart) or entropy, not '\(text)'")
        }
        return .center
    }

    /// `--focus X,Y`, or `--gravity attention|smart|entropy` (a content strategy instead of a fixed gravity).
    static func focus(_ args: Arguments) throws -> CropFocus? {
        if let text = args.value("focus") {
            if args.value("gravity") != nil { throw UsageError("--focus and --gravity exclude each other") }
            guard case .point? = CropFocus(parsing: text) else {
                throw UsageError("--focus must be two fractions X,Y between 0 and 1 (0.5,0.3), not '\(text)'")
            }
            return CropFocus(parsing: text)
        }
        guard let text = args.value("gravity"), Gravity(parsing: text) == nil else { return nil }
        return CropFocus(parsing: text)
    }

    /// The transformer chain the flags ask for (empty when none).
    static func transformers(_ args: Arguments, background: RGBAColor?, coders: CodersManager) throws -> [any ImageTransforming] {
        var recipe = ProcessingRecipe(gravity: try gravity(args))
        recipe.focus = try focus(args)
        if let text = args.value("crop") { recipe.crops.append(try crop(text)) }
        if let text = args.value("rotate") {
            guard let degrees = Int(text), degrees % 90 == 0 else { throw UsageError("--rotate must be 90, 180 or 270, not '\(text)'") }
            recipe.rotation = ImageTransformers.Rotate.Angle(rawValue: ((degrees % 360) + 360) % 360)
        }
        if let text = args.value("flip") {
            switch text.lowercased() {
            case "horizontal", "h", "x": recipe.flips = [.horizontal]
            case "vertical", "v", "y": recipe.flips = [.vertical]
            case "both": recipe.flips = [.horizontal, .vertical]
            default: throw UsageError("--flip must be horizontal, vertical or both, not '\(text)'")
            }
        }
        recipe.grayscale = args.flag("grayscale")
        if let text = args.value("blur") {
            guard let sigma = Double(text), sigma > 0, sigma <= 1000 else { throw UsageError("--blur must be a sigma in pixels above 0 and at most 1000, not '\(text)'") }
            recipe.blurSigma = sigma
        }
        recipe.sharpen = args.flag("sharpen")
        if args.flag("circle") {
            if args.value("radius") != nil { throw UsageError("--circle and --radius exclude each other") }
            recipe.circle = true
        } else if let text = args.value("radius") {
            guard let radius = Double(text), radius > 0, radius <= 1_048_576 else { throw UsageError("--radius must be a number of pixels above 0, not '\(text)'") }
            recipe.cornerRadius = radius
        }
        if args.flag("flatten") { recipe.flattenOnto = background ?? RGBAColor(red: 255, green: 255, blue: 255) }
        recipe.watermark = try watermark(args, coders: coders)
        return recipe.transformers
    }

    /// `--watermark FILE` and its placement flags; the placement flags without a file are a usage error.
    static func watermark(_ args: Arguments, coders: CodersManager) throws -> ImageTransformers.Watermark? {
        guard let file = args.value("watermark") else {
            if let stray = ["watermark-position", "watermark-opacity", "watermark-offset", "watermark-scale"].first(where: { args.value($0) != nil }) {
                throw UsageError("--\(stray) needs --watermark FILE")
            }
            return nil
        }
        var placement = ImageTransformers.Watermark.Placement.gravity(.center)
        if let text = args.value("watermark-position") {
            if ["repeat", "re", "tile"].contains(text.lowercased()) {
                placement = .repeated
            } else if let gravity = ProcessingURL.gravity(text.lowercased()) {
                placement = .gravity(gravity)
            } else {
                throw UsageError("--watermark-position must be a gravity (centre, top-right, south-east, soea ...) or repeat, not '\(text)'")
            }
        }
        var opacity = 1.0
        if let text = args.value("watermark-opacity") {
            guard let value = Double(text), value >= 0, value <= 1 else { throw UsageError("--watermark-opacity must be between 0 and 1, not '\(text)'") }
            opacity = value
        }
        var offset = (0, 0)
        if let text = args.value("watermark-offset") {
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
            guard parts.count == 2, let x = parts[0], let y = parts[1], abs(x) <= 1 << 20, abs(y) <= 1 << 20 else {
                throw UsageError("--watermark-offset must be X,Y in pixels (10,10), not '\(text)'")
            }
            offset = (x, y)
        }
        var scale = 0.0
        if let text = args.value("watermark-scale") {
            guard let value = Double(text), value > 0, value <= 1 else { throw UsageError("--watermark-scale must be above 0 and at most 1, not '\(text)'") }
            scale = value
        }
        return ImageTransformers.Watermark(try watermark(file: file, coders: coders), opacity: opacity, placement: placement,
                                           offsetX: offset.0, offsetY: offset.1, scale: scale)
    }

    /// The mark in `file`, read once (at most 16 MiB), with a message that names the file when it cannot be used.
    static func watermark(file: String, coders: CodersManager) throws -> WatermarkImage {
        var status = stat()
        guard stat(file, &status) == 0 else { throw CLIError("--watermark \(file): \(String(cString: strerror(errno)).lowercased())") }
        guard status.st_mode & S_IFMT == S_IFREG, status.st_size <= 16 << 20 else { throw CLIError("--watermark \(file): not a file of at most 16 MiB") }
        guard let data = FileManager.default.contents(atPath: file) else { throw CLIError("--watermark \(file): cannot be read") }
        let bytes = [UInt8](data)
        do {
            return try WatermarkImage(data: bytes, coders: coders)
        } catch {
            throw CLIError("--watermark \(file): \(error)")
        }
    }

    /// `WxH`, `W:H` or `WxH+X+Y`.
    static func crop(_ text: String) throws -> ProcessingRecipe.CropRegion {
        let usage = UsageError("--crop must be WxH, W:H or WxH+X+Y (e.g. 200x100, 16:9, 200x100+10+20), not '\(text)'")
        if text.contains(":") {
            let parts = text.split(separator: ":").compactMap { Int($0) }
            guard parts.count == 2, parts[0] > 0, parts[1] > 0, parts[0] <= 1 << 20, parts[1] <= 1 << 20 else { throw usage }
            return .aspect(parts[0], parts[1])
        }
        let pieces = text.split(separator: "+", omittingEmptySubsequences: false)
        guard let size = PixelSize(parsing: String(pieces[0])), size.width > 0, size.height > 0 else { throw usage }
        switch pieces.count {
        case 1: return .box(size)
        case 3:
            guard let x = Int(pieces[1]), let y = Int(pieces[2]), x >= 0, y >= 0 else { throw usage }
            return .rectangle(x: x, y: y, width: size.width, height: size.height)
        default: throw usage
        }
    }
}
