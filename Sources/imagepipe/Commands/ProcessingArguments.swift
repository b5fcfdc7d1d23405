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
        .option(Option("scale-down-limit", value: "SIZE", help: """
                without --size: decode to at most SIZE pixel bytes, keeping the aspect ratio
                (e.g. 64M: a 100 MP photo comes out ~16 MP)
                """)),
    ])

    /// `--gravity` and `--scale-down-limit` into the decode options (they decide what the decode produces).
    static func apply(_ args: Arguments, to options: inout DecodeOptions) throws {
        options.gravity = try gravity(args)
        options.focus = try focus(args)
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
    static func transformers(_ args: Arguments, background: RGBAColor?) throws -> [any ImageTransforming] {
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
        return recipe.transformers
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
