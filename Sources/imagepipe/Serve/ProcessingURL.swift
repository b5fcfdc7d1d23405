import PipelineHost

/// An imgproxy-style request path, parsed: `/<signature>/<option>/.../plain/<percent-encoded source>[@<format>]` or
/// `/<signature>/<option>/.../<base64url source>[.<format>]`. Options are `name:arg[:arg]` segments:
///
///   rs:MODE:W:H  s:W:H  w:W  h:H  rt:MODE   size and mode (fit; fill, fill-down: cover and crop; force: stretch; auto: fill when orientations agree)      g:GRAVITY  (ce, no, so, ea, we,
///   noea, nowe, soea, sowe, or top, top-left ...; sm smart, entropy, fp:X:Y focal point)   c:W:H[:GRAVITY]  crop a box by its gravity or g:   ar:W:H  crop to an aspect ratio
///   pg:N  page   fr:N  frame   tint:RRGGBB  tmpl  template   up  upscale   q:N  quality   bg:RRGGBB  background
///   t:THRESHOLD[:COLOR[:EQ_H[:EQ_V]]]  trim a uniform border first
///   mb:BYTES  the highest quality whose output fits   f:FORMAT  output format   fq:FORMAT:Q[:FORMAT:Q...]  quality per format   dpr:N  size × N   pd:T[:R[:B[:L]]]  padding   ex:1[:GRAVITY]  extend to the size   bl:SIGMA  blur   sh  sharpen   rot:90|180|270   fl:h|v|both   gray   r:RADIUS   circle
///   kmd:none|copyright|all  metadata kept (also imgproxy's sm:0 and kcr:1)
///   flat  flatten onto bg   pr:NAME[:NAME...]  presets (`Presets`)   wm:OPACITY[:POSITION[:X[:Y[:SCALE]]]]  the
///   service's watermark (positions as gravities, re: repeated; X, Y offsets; SCALE relative to the result)
///
/// The signature is base64url(HMAC-SHA256(key, salt + the path after it)), as imgproxy's, so its signing code
/// and libraries work unchanged.
struct ProcessingURL {
    struct Failure: Error { let status: Int; let message: String }

    var options = DecodeOptions()
    var transformers: [any ImageTransforming] = []
    var source: String
    /// nil: negotiated from Accept.
    var format: String?
    var quality: Int?
    /// `fq:FORMAT:Q[:FORMAT:Q...]`: the quality for an output format when `q:` does not say (format names as `f:`).
    var formatQualities: [String: Int] = [:]
    /// `mb:BYTES`: the highest quality whose output fits (`ByteBudget`).
    var maxBytes: Int?
    var background: RGBAColor?
    /// `kmd:none|copyright|all`, or imgproxy's `sm:0` (strip_metadata off: all) and `kcr:1` (keep_copyright while
    /// stripping); nil = the service's `--keep-metadata` (none unless set).
    var keepMetadata: MetadataPolicy?
    /// The options as given, in order: part of the output's cache key with the source and format.
    var canonicalOptions: [String] = []

    /// The signature and the part it covers, found without parsing an option (the signature is checked first).
    static func signedPart(of path: String) -> (signature: String, signedPath: String)? {
        guard path.hasPrefix("/") else { return nil }
        let afterSlash = path.dropFirst()
        guard let slash = afterSlash.firstIndex(of: "/") else { return nil }
        return (String(afterSlash[..<slash]), String(afterSlash[slash...]))
    }

    init(path: String, maxSide: Int, presets: Presets = Presets(), watermark: WatermarkImage? = nil) throws {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        guard segments.count >= 2 else { throw Failure(status: 400, message: "expected /<signature>/<options>/<source>") }
        // segments[0] is the signature, checked before this parse (signedPart). Presets are expanded first (the
        // options before "plain" or the last segment), so what follows sees only plain options.
        var rest = Array(segments.dropFirst())
        let sourceStart = rest.firstIndex(of: "plain") ?? rest.count - 1
        rest = try presets.expand(Array(rest[..<sourceStart])) + rest[sourceStart...]
        var recipe = ProcessingRecipe()
        var flatten = false
        var box: PixelSize?, aspect: (Int, Int)?
        var size: (Int, Int)?
        var dpr = 1.0
        var padding: (Int, Int, Int, Int)?
        var extendGravity: Gravity?
        var drawnWatermark: ImageTransformers.Watermark?
        var cropPlacement: (gravity: Gravity, focus: CropFocus?)?
        var stripMetadata: Bool?, keepCopyright: Bool?
        // Options until "plain" or the last segment (the encoded source).
        var sourceText: String?
        var plain = false
        while !rest.isEmpty {
            let segment = rest.removeFirst()
            if segment == "plain" {
                plain = true
                sourceText = rest.joined(separator: "/")
                rest = []
                break
            }
            if rest.isEmpty { sourceText = segment; break }
            let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            let name = parts[0], args = Array(parts.dropFirst())
            canonicalOptions.append(segment)
            func int(_ index: Int, _ range: ClosedRange<Int>) throws -> Int {
                guard index < args.count, let value = Int(args[index]), range.contains(value) else {
                    throw Failure(status: 400, message: "option '\(segment)': argument \(index + 1) must be a whole number in \(range.lowerBound)...\(range.upperBound)")
                }
                return value
            }
            func number(_ index: Int, _ range: ClosedRange<Double>) throws -> Double {
                guard index < args.count, let value = Double(args[index]), range.contains(value) else {
                    throw Failure(status: 400, message: "option '\(segment)': argument \(index + 1) must be a number in \(range.lowerBound)...\(range.upperBound)")
                }
                return value
            }
            /// imgproxy's booleans: 1, t, true or 0, f, false; absent or empty is false.
            func flag(_ index: Int) throws -> Bool {
                guard index < args.count, !args[index].isEmpty else { return false }
                switch args[index].lowercased() {
                case "1", "t", "true": return true
                case "0", "f", "false": return false
                default: throw Failure(status: 400, message: "option '\(segment)': argument \(index + 1) must be 1 or 0")
                }
            }
            func colour(_ index: Int) throws -> RGBAColor {
                guard index < args.count, let value = RGBAColor(parsing: args[index].hasPrefix("#") ? args[index] : "#" + args[index])
                        ?? RGBAColor(parsing: args[index]) else {
                    throw Failure(status: 400, message: "option '\(segment)': expected a colour such as ff3b30")
                }
                return value
            }
            switch name {
            case "rs", "resize", "rt", "resizing_type":
                if args.first == "auto" {
                    options.autoScaleMode = true
                } else {
                    guard let mode = Self.scaleMode(args.first ?? "") else {
                        throw Failure(status: 400, message: "option '\(segment)': the mode must be fit, fill, fill-down, force, auto or aspect-fill")
                    }
                    options.scaleMode = mode
                    options.autoScaleMode = false
                }
                if name == "rs" || name == "resize" { size = (try int(1, 0...maxSide), try int(2, 0...maxSide)) }
            case "s", "size": size = (try int(0, 0...maxSide), try int(1, 0...maxSide))
            case "w", "width": size = (try int(0, 0...maxSide), size?.1 ?? 0)
            case "h", "height": size = (size?.0 ?? 0, try int(0, 0...maxSide))
            case "g", "gravity":
                // g:sm (smart: attention), g:entropy, g:fp:X:Y (a focal point, fractions) or a fixed gravity.
                switch args.first ?? "" {
                case "sm": options.focus = .attention
                case "entropy": options.focus = .entropy
                case "fp":
                    guard args.count == 3 else { throw Failure(status: 400, message: "option '\(segment)': expected g:fp:X:Y") }
                    options.focus = .point(x: try number(1, 0...1), y: try number(2, 0...1))
                default:
                    guard let gravity = Self.gravity(args.first ?? "") else { throw Failure(status: 400, message: "option '\(segment)': unknown gravity") }
                    options.gravity = gravity
                    options.focus = nil
                }
            case "c", "crop":
                // imgproxy's crop:W:H[:GRAVITY]: the box's own gravity (sm, fp:X:Y too), else the request's g:.
                box = PixelSize(width: try int(0, 1...maxSide), height: try int(1, 1...maxSide))
                cropPlacement = nil
                if args.count > 2 {
                    switch args[2] {
                    case "sm": cropPlacement = (.center, .attention)
                    case "entropy": cropPlacement = (.center, .entropy)
                    case "fp":
                        guard args.count == 5 else { throw Failure(status: 400, message: "option '\(segment)': expected c:W:H:fp:X:Y") }
                        cropPlacement = (.center, .point(x: try number(3, 0...1), y: try number(4, 0...1)))
                    default:
                        guard let gravity = Self.gravity(args[2]) else { throw Failure(status: 400, message: "option '\(segment)': unknown gravity") }
                        cropPlacement = (gravity, nil)
                    }
                }
            case "ar", "aspect": aspect = (try int(0, 1...10000), try int(1, 1...10000))
            case "pg", "page": options.pageIndex = try int(0, 0...100_000)
            case "fr", "frame": options.frameIndex = try int(0, 0...100_000)
            case "tint": options.tint = try colour(0)
            case "tmpl", "template": options.template = true
            case "up", "upscale": options.allowUpscale = true
            case "q", "quality": quality = try int(0, 1...100)
            case "mb", "max_bytes":
                let bytes = try int(0, 0...Int(Int32.max))
                maxBytes = bytes == 0 ? nil : bytes
            case "fq", "format_quality":
                guard !args.isEmpty, args.count % 2 == 0 else {
                    throw Failure(status: 400, message: "option '\(segment)': expected fq:FORMAT:QUALITY[:FORMAT:QUALITY...]")
                }
                for pair in stride(from: 0, to: args.count, by: 2) {
                    formatQualities[Self.formatName(args[pair])] = try int(pair + 1, 1...100)
                }
            case "dpr": dpr = try number(0, 0.1...8)
            case "pd", "padding":
                // CSS's shorthand, as imgproxy's: 1 value all sides, 2 vertical/horizontal, 3 top/horizontal/bottom, 4.
                guard (1...4).contains(args.count) else { throw Failure(status: 400, message: "option '\(segment)': expected 1 to 4 sides") }
                let v = try (0..<args.count).map { try int($0, 0...maxSide) }
                let (top, right) = (v[0], v.count > 1 ? v[1] : v[0])
                let bottom = v.count > 2 ? v[2] : v[0], left = v.count > 3 ? v[3] : right
                padding = (top, right, bottom, left)
            case "ex", "extend":
                let on = args.first.map { ["1", "t", "true"].contains($0.lowercased()) } ?? true
                guard on || ["0", "f", "false"].contains(args.first?.lowercased() ?? "") else {
                    throw Failure(status: 400, message: "option '\(segment)': expected ex:1[:GRAVITY]")
                }
                extendGravity = nil
                if on {
                    guard let gravity = Self.gravity(args.count > 1 ? args[1] : "ce") else {
                        throw Failure(status: 400, message: "option '\(segment)': unknown gravity")
                    }
                    extendGravity = gravity
                }
            case "wm", "watermark":
                // imgproxy's wm:OPACITY:POSITION:X:Y:SCALE; the mark is the operator's (serve --watermark), never a URL's.
                guard let watermark else { throw Failure(status: 400, message: "option '\(segment)': this service has no watermark (serve --watermark FILE)") }
                let opacity = try number(0, 0...1)
                let placement = try Self.watermarkPlacement(args.count > 1 ? args[1] : "ce", segment: segment)
                let x = args.count > 2 && !args[2].isEmpty ? try int(2, -maxSide...maxSide) : 0
                let y = args.count > 3 && !args[3].isEmpty ? try int(3, -maxSide...maxSide) : 0
                let scale = args.count > 4 && !args[4].isEmpty ? try number(4, 0...1) : 0
                drawnWatermark = opacity == 0 ? nil : ImageTransformers.Watermark(watermark, opacity: opacity, placement: placement,
                                                                                    offsetX: x, offsetY: y, scale: scale)
            case "kmd", "keep_metadata":
                guard args.count == 1, let policy = MetadataPolicy(rawValue: args[0]) else {
                    throw Failure(status: 400, message: "option '\(segment)': expected kmd:none, kmd:copyright or kmd:all")
                }
                keepMetadata = policy
            case "sm", "strip_metadata": stripMetadata = try flag(0)
            case "kcr", "keep_copyright": keepCopyright = try flag(0)
            case "t", "trim":
                // imgproxy's trim:THRESHOLD[:COLOR[:EQUAL_HOR[:EQUAL_VER]]]; no colour: the top-left pixel's.
                let threshold = try number(0, 0...255)
                let colour = args.count > 1 && !args[1].isEmpty ? try colour(1) : nil
                options.trim = TrimOptions(threshold: threshold, background: colour, equalHorizontal: try flag(2), equalVertical: try flag(3))
            case "bg", "background": background = try colour(0)
            case "f", "format": format = args.first?.lowercased()
            case "bl", "blur": recipe.blurSigma = try number(0, 0.1...100)
            case "sh", "sharpen": recipe.sharpen = true
            case "gray", "grayscale": recipe.grayscale = true
            case "circle": recipe.circle = true
            case "flat", "flatten": flatten = true
            case "rot", "rotate":
                let degrees = try int(0, 0...270)
                guard degrees == 0 || ImageTransformers.Rotate.Angle(rawValue: degrees) != nil else {
                    throw Failure(status: 400, message: "rot must be 90, 180 or 270")
                }
                recipe.rotation = ImageTransformers.Rotate.Angle(rawValue: degrees)
            case "fl", "flip":
                switch args.first {
                case "h", "horizontal": recipe.flips = [.horizontal]
                case "v", "vertical": recipe.flips = [.vertical]
                case "both", "hv": recipe.flips = [.horizontal, .vertical]
                default: throw Failure(status: 400, message: "fl must be h, v or both")
                }
            case "r", "radius": recipe.cornerRadius = try number(0, 0.5...10000)
            default: throw Failure(status: 400, message: "unknown option '\(name)' in '\(segment)'")
            }
        }
        guard let encoded = sourceText, !encoded.isEmpty else { throw Failure(status: 400, message: "the source is missing") }
        if keepMetadata == nil, stripMetadata != nil || keepCopyright != nil {
            keepMetadata = stripMetadata == false ? .all : keepCopyright == true ? .copyright : MetadataPolicy.none
        }
        if options.template && options.tint == nil { throw Failure(status: 400, message: "tmpl needs tint:COLOR") }
        // dpr:N asks for N device pixels per CSS pixel: the size (not a crop box) scales, within --max-size.
        if dpr != 1, let given = size {
            size = (min(maxSide, Int((Double(given.0) * dpr).rounded())), min(maxSide, Int((Double(given.1) * dpr).rounded())))
        }
        if let size { options.thumbnailSize = PixelSize(width: size.0, height: size.1) }
        if options.thumbnailSize == PixelSize(width: 0, height: 0) { options.thumbnailSize = nil }

        // The source, and the format named after it.
        if plain {
            var text = encoded
            if let at = text.lastIndex(of: "@") {
                format = format ?? String(text[text.index(after: at)...]).lowercased()
                text = String(text[..<at])
            }
            guard let decoded = Self.percentDecoded(text) else { throw Failure(status: 400, message: "the plain source has a bad percent escape") }
            source = decoded
        } else {
            var text = encoded
            if let dot = text.lastIndex(of: ".") {
                format = format ?? String(text[text.index(after: dot)...]).lowercased()
                text = String(text[..<dot])
            }
            guard let bytes = Self.base64URLDecoded(text), let decoded = String(validating: bytes, as: UTF8.self) else {
                throw Failure(status: 400, message: "the source is not base64url (or use /plain/<percent-encoded URL>)")
            }
            source = decoded
        }
        format = format.map(Self.formatName)
        if format?.isEmpty == true { format = nil }

        // The transformers, in the same fixed order as the CLI's; crops and the circle placed by the final gravity.
        recipe.gravity = options.gravity
        recipe.focus = options.focus
        if let box {
            if let cropPlacement {
                recipe.crops.append(.placedBox(box, gravity: cropPlacement.gravity, focus: cropPlacement.focus))
            } else {
                recipe.crops.append(.box(box))
            }
        }
        if let aspect { recipe.crops.append(.aspect(aspect.0, aspect.1)) }
        // ex: grows the result to the size asked (both sides given), then pd: adds its border; both filled with
        // bg: when given, else left transparent (a format without alpha flattens that onto its background).
        if let extendGravity, let size, size.0 > 0, size.1 > 0 {
            recipe.pads.append(.extend(to: PixelSize(width: size.0, height: size.1), gravity: extendGravity))
        }
        if let p = padding {
            // dpr scales the padding too, as imgproxy's.
            let scaled = [p.0, p.1, p.2, p.3].map { min(maxSide, Int((Double($0) * dpr).rounded())) }
            recipe.pads.append(.border(top: scaled[0], right: scaled[1], bottom: scaled[2], left: scaled[3]))
        }
        recipe.padFill = background
        if flatten { recipe.flattenOnto = background ?? RGBAColor(red: 255, green: 255, blue: 255) }
        // --max-size bounds every output: without a size, or with a side left 0, the source's own size could pass it.
        // (Padding can also take it past the bound: then the padded result is reduced to fit.)
        if size.map({ $0.0 == 0 || $0.1 == 0 }) ?? true || padding != nil { recipe.bound = SideBound(maxSide: maxSide) }
        recipe.watermark = drawnWatermark
        transformers = recipe.transformers
    }

    /// imgproxy's resizing types: `fill` (and `fill-down`: outputs never exceed a raster source unless `up`) covers
    /// the box and crops, `force` stretches; `aspect-fill` is the library's name for imgproxy's `fill`.
    static func scaleMode(_ name: String) -> ScaleMode? {
        switch name {
        case "fit": .fit
        case "fill", "fill-down", "aspect-fill": .aspectFill
        case "force": .fill
        default: nil
        }
    }

    /// imgproxy's watermark positions: a gravity (short or long name) or `re` (repeat over the image).
    static func watermarkPlacement(_ name: String, segment: String) throws -> ImageTransformers.Watermark.Placement {
        if name == "re" || name == "repeat" { return .repeated }
        guard let gravity = gravity(name) else { throw Failure(status: 400, message: "option '\(segment)': unknown watermark position '\(name)'") }
        return .gravity(gravity)
    }

    /// imgproxy's short gravity names (ce, no, so, ea, we, noea, nowe, soea, sowe), or the library's names.
    static func gravity(_ name: String) -> Gravity? {
        let short: [String: Gravity] = ["ce": .center, "no": .top, "so": .bottom, "ea": .right, "we": .left,
                                        "noea": .topRight, "nowe": .topLeft, "soea": .bottomRight, "sowe": .bottomLeft]
        return short[name] ?? Gravity(parsing: name)
    }

    /// Output format names as the coders know them: lower case, `jpeg` is `jpg`.
    static func formatName(_ text: String) -> String {
        let name = text.lowercased()
        return name == "jpeg" ? "jpg" : name
    }

    static func percentDecoded(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    static func base64URLDecoded(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        for c in text.utf8 {
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): values.append(c - 65)
            case UInt8(ascii: "a")...UInt8(ascii: "z"): values.append(c - 97 + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): values.append(c - 48 + 52)
            case UInt8(ascii: "-"), UInt8(ascii: "+"): values.append(62)
            case UInt8(ascii: "_"), UInt8(ascii: "/"): values.append(63)
            case UInt8(ascii: "="): continue
            default: return nil
            }
        }
        var out: [UInt8] = []
        var buffer: UInt32 = 0, bits = 0
        for v in values {
            buffer = buffer << 6 | UInt32(v)
            bits += 6
            if bits >= 8 { bits -= 8; out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits))) }
        }
        return out
    }

    static func base64URLEncoded(_ bytes: [UInt8]) -> String { Base64.encode(bytes, urlSafe: true, padded: false) }
}

/// The last step of a request that did not fix both sides: an output larger than `maxSide` on either side is
/// reduced to fit (aspect kept); a smaller one passes untouched. Vector sources still render at their intrinsic
/// size first, as a URL without a size asks.
struct SideBound: ImageTransforming {
    let maxSide: Int
    var key: TransformKey { TransformKey("max-side", ["": .int(maxSide)]) }
    func transform(_ image: Image) throws -> Image {
        guard image.width > maxSide || image.height > maxSide else { return image }
        return try ImageTransformers.ResizeTo(size: PixelSize(width: maxSide, height: maxSide), mode: .fit).transform(image)
    }
}
