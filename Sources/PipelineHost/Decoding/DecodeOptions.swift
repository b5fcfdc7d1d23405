import PluginAPI

/// Limits a decode must stay within; the defaults protect a server from decompression bombs.
public struct DecodeLimits: Sendable, Hashable, Codable {
    /// Output and intermediate pixels. Default 268 million (16384 x 16384), as libvips' default.
    public var maxPixels: Int
    /// Largest width or height. Default 65535.
    public var maxDimension: Int
    /// Animation frames. Default 10000.
    public var maxFrames: Int
    /// Encoded input bytes. Default 512 MiB.
    public var maxInputBytes: Int
    /// Pixel bytes one request may hold at once: what the coder allocates through the host, every intermediate
    /// buffer of the finishing step and the output. Checked before each allocation, so a request over budget fails
    /// with `PipelineError.memoryBudgetExceeded` instead of growing. Default 2 GiB (a 268-megapixel RGBA8 decode
    /// and its thumbnail fit; the same value caps an isolated worker's address space). Host-side only: plugins see
    /// it through `alloc_pixels` refusing.
    public var maxMemoryBytes: Int

    public init(maxPixels: Int = 16384 * 16384, maxDimension: Int = 65535, maxFrames: Int = 10000,
                maxInputBytes: Int = 512 << 20, maxMemoryBytes: Int = 2 << 30) {
        self.maxPixels = maxPixels
        self.maxDimension = maxDimension
        self.maxFrames = maxFrames
        self.maxInputBytes = maxInputBytes
        self.maxMemoryBytes = maxMemoryBytes
    }

    /// Refuses an image of width x height before it is allocated: the pixel and dimension limits hold for what the
    /// host produces (outputs, upscales, intermediates) as they do for what a coder decodes.
    func checkOutput(width: Int, height: Int) throws {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if (maxPixels > 0 && (overflow || pixels > maxPixels))
            || (maxDimension > 0 && (width > maxDimension || height > maxDimension)) {
            throw PipelineError.pixelLimitExceeded(width: width, height: height, limit: maxPixels)
        }
    }

    /// Refuses to hold `bytes` more when `held` are already held for this request.
    func checkMemory(holding held: Int, adding bytes: Int) throws {
        let (total, overflow) = held.addingReportingOverflow(bytes)
        if maxMemoryBytes > 0, overflow || total > maxMemoryBytes {
            throw PipelineError.memoryBudgetExceeded(bytes: overflow ? Int.max : total, budget: maxMemoryBytes)
        }
    }

    var abi: ip_limits {
        ip_limits(struct_size: UInt32(MemoryLayout<ip_limits>.size), max_pixels: UInt64(max(0, maxPixels)),
                  max_dimension: UInt32(clamping: maxDimension), max_frames: UInt32(clamping: maxFrames),
                  max_input_bytes: UInt64(max(0, maxInputBytes)))
    }
}

/// What to decode and at which size. Every field has a default, so `DecodeOptions()` decodes the first
/// image at its intrinsic size.
public struct DecodeOptions: Sendable, Hashable, Codable {
    /// Output box; nil = intrinsic size. Raster sources are never upscaled unless `allowUpscale`;
    /// vector sources render at the box (that is what a size means for them).
    public var thumbnailSize: PixelSize?
    /// Default `.fit`.
    public var scaleMode: ScaleMode
    /// 0-based page of a document. Default 0.
    public var pageIndex: Int
    /// 0-based frame of an animation. Default 0.
    public var frameIndex: Int
    /// Decode only the first frame of animations. Default false.
    public var firstFrameOnly: Bool
    /// Tint colour; with `template` the output is this colour with the decoded alpha, without it vector coders
    /// still use it as CSS `currentColor`. Default nil.
    public var tint: RGBAColor?
    /// Template rendering (SwiftUI's `.renderingMode(.template)`). Default false.
    public var template: Bool
    /// Allow fit/aspect-fill outputs larger than a raster source. Default false.
    public var allowUpscale: Bool
    /// RGBA16 output for sources with more than 8 bits per channel. Default false.
    public var highBitDepth: Bool
    /// Documents: transparent instead of white page background. Default false.
    public var transparentBackground: Bool
    /// Ignore EXIF / irot / imir orientation. Default false (orientation applied).
    public var ignoreOrientation: Bool
    /// Decoder threads; 0 = the coder's default. Default 0.
    public var threads: Int
    public var limits: DecodeLimits
    /// Where the bytes came from (file: URL for local files). Vector coders resolve relative resources against a
    /// file: URL only. Set by the image manager; default nil.
    public var sourceURL: String?
    /// Password for encrypted documents. Default nil.
    public var password: String?
    /// The colour space of the result. Default `.srgb`: sources with ICC profiles, CICP or PNG colour chunks are
    /// converted (HDR tone-mapped), so untagged outputs look right everywhere.
    public var colorOutput: ColorOutput
    /// Which part an aspect-fill keeps. Default `.center`.
    public var gravity: Gravity
    /// Without a `thumbnailSize`, decode to at most this many pixel bytes (keeping the aspect ratio), as
    /// SDWebImage's `scaleDownLimitBytes`: a 100-megapixel photo shown whole need not cost 400 MB. Default nil.
    public var scaleDownLimitBytes: Int?
    /// What places an aspect-fill's window when the content or a known point should, not a fixed `gravity`
    /// (smart crop, focal point); it overrides `gravity` for the aspect-fill. Default nil.
    public var focus: CropFocus?
    /// Cut a uniform border off the decoded image before it is placed in the box (imgproxy's `trim`), so the size
    /// asked is the size of the content. Default nil.
    public var trim: TrimOptions?
    /// imgproxy's resizing type `auto`: aspect-fill when the source and the box are both landscape (or square) or
    /// both portrait, fit otherwise, decided once the source's size is known; `scaleMode` is then ignored.
    /// Default false.
    public var autoScaleMode: Bool

    public init(thumbnailSize: PixelSize? = nil, scaleMode: ScaleMode = .fit, pageIndex: Int = 0, frameIndex: Int = 0,
                firstFrameOnly: Bool = false, tint: RGBAColor? = nil, template: Bool = false, allowUpscale: Bool = false,
                highBitDepth: Bool = false, transparentBackground: Bool = false, ignoreOrientation: Bool = false,
                threads: Int = 0, limits: DecodeLimits = DecodeLimits(), sourceURL: String? = nil, password: String? = nil,
                colorOutput: ColorOutput = .srgb, gravity: Gravity = .center, scaleDownLimitBytes: Int? = nil,
                focus: CropFocus? = nil, trim: TrimOptions? = nil, autoScaleMode: Bool = false) {
        self.thumbnailSize = thumbnailSize
        self.scaleMode = scaleMode
        self.pageIndex = pageIndex
        self.frameIndex = frameIndex
        self.firstFrameOnly = firstFrameOnly
        self.tint = tint
        self.template = template
        self.allowUpscale = allowUpscale
        self.highBitDepth = highBitDepth
        self.transparentBackground = transparentBackground
        self.ignoreOrientation = ignoreOrientation
        self.threads = threads
        self.limits = limits
        self.sourceURL = sourceURL
        self.password = password
        self.colorOutput = colorOutput
        self.gravity = gravity
        self.scaleDownLimitBytes = scaleDownLimitBytes
        self.focus = focus
        self.trim = trim
        self.autoScaleMode = autoScaleMode
    }

    /// The options with `autoScaleMode` resolved for a source of this display size.
    func resolvingAutoScaleMode(sourceWidth: Int, sourceHeight: Int) -> DecodeOptions {
        guard autoScaleMode else { return self }
        var resolved = self
        resolved.autoScaleMode = false
        if let box = thumbnailSize, box.width > 0, box.height > 0 {
            let sameOrientation = (sourceWidth >= sourceHeight) == (box.width >= box.height)
            resolved.scaleMode = sameOrientation ? .aspectFill : .fit
        } else {
            resolved.scaleMode = .fit
        }
        return resolved
    }

    /// The options' part of a result's identity, as `name=value` terms in a fixed order, defaults left out (so a
    /// new option with a default keeps every existing key). Everything that changes the pixels is here; what only
    /// decides whether a decode may run (limits, password, threads, the source-URL hint) is not. Cache keys and
    /// the batch's output stamps both read it, and a test changes each field in turn to prove the rule holds.
    public var resultKeyTerms: [String] {
        var terms: [String] = []
        if let size = thumbnailSize { terms.append("size=\(size)"); terms.append("mode=\(scaleMode.rawValue)") }
        if gravity != .center { terms.append("gravity=\(gravity.rawValue)") }
        if pageIndex != 0 { terms.append("page=\(pageIndex)") }
        if frameIndex != 0 { terms.append("frame=\(frameIndex)") }
        if let tint { terms.append("tint=\(tint)") }
        if template { terms.append("template") }
        if allowUpscale { terms.append("upscale") }
        if highBitDepth { terms.append("16bit") }
        if transparentBackground { terms.append("transparent") }
        if ignoreOrientation { terms.append("no-orientation") }
        if firstFrameOnly { terms.append("first-frame") }
        if colorOutput != .srgb { terms.append("color=\(colorOutput.rawValue)") }
        if let scaleDownLimitBytes, thumbnailSize == nil { terms.append("scale-down=\(scaleDownLimitBytes)") }
        if let focus { terms.append("focus=\(focus.keyText)") }
        if let trim { terms.append("trim=\(trim.keyText)") }
        if autoScaleMode { terms.append("mode=auto") }
        return terms
    }

    /// The options of a full-size decode of the same source: what a raster coder without shrink-on-load produces
    /// for any size (the finishing step does the rest), so its key is shared by every size.
    var fullSize: DecodeOptions {
        var full = self
        full.thumbnailSize = nil
        full.scaleMode = .fit
        full.gravity = .center
        full.allowUpscale = false
        full.tint = nil
        full.template = false
        full.colorOutput = .srgb
        full.scaleDownLimitBytes = nil
        full.focus = nil
        full.trim = nil
        full.autoScaleMode = false
        return full
    }

    /// Calls `body` with the C options; everything they point to lives for the duration of the call.
    func withABI<R>(_ body: (UnsafePointer<ip_decode_options>) throws -> R) rethrows -> R {
        let owned = OwnedDecodeOptions(self)
        return try withExtendedLifetime(owned) { try body(owned.pointer) }
    }
}

func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) throws -> R) rethrows -> R {
    guard let text else { return try body(nil) }
    return try text.withCString { try body($0) }
}
