import Synchronization

/// Chooses a coder for each request and finishes what the coder leaves to the host.
///
/// Finishing: a coder that does not render at size (`.scales`) decodes at full size and the host resamples to
/// the requested box; the colour step converts from the space the source states to `options.colorOutput`
/// (ColorConversion); a coder that does not tint (`.tints`) gets the host's template tint afterwards. So every
/// caller sees the same result whichever coder ran.
///
/// Isolation (CodersManager+Isolation.swift): with a `workerPool`, probes and decodes of some coders run in
/// sandboxed worker processes, per `defaultIsolation` or per call.
public final class CodersManager: ImageDecoding, ImageEncoding {
    public let coders: [PluginCoder]
    let isolationSettings = Mutex(IsolationSettings())

    public init(coders: [PluginCoder]) { self.coders = coders }

    /// The coder sniffing picks for these bytes, or nil.
    public func coder(forData data: [UInt8]) -> PluginCoder? {
        data.withUnsafeBytes { CoderSelection.choose(for: $0, among: coders) }
    }

    /// The first coder that encodes `format` (a format name such as "png" or a file extension such as "jpg").
    public func encoder(for format: String) -> PluginCoder? {
        let key = format.lowercased()
        return coders.first {
            $0.descriptor.capabilities.contains(.encode) && ($0.descriptor.format == key || $0.descriptor.extensions.contains(key))
        }
    }

    public func canDecode(_ data: [UInt8]) -> Bool { coder(forData: data) != nil }
    public func canEncode(format: String) -> Bool { encoder(for: format) != nil }

    public func probe(data: [UInt8], options: DecodeOptions = DecodeOptions()) throws -> ImageInfo {
        try probe(data: data, options: options, policy: nil, timeout: nil)
    }

    public func decode(data: [UInt8], options: DecodeOptions = DecodeOptions()) throws -> Image {
        try decode(data: data, options: options, cancellation: nil)
    }

    /// Decodes with a cancellation context the caller can fire from another thread.
    func decode(data: [UInt8], options: DecodeOptions, cancellation: CallContext?) throws -> Image {
        try decode(data: data, options: options, isolation: nil, timeout: nil, cancellation: cancellation)
    }

    /// Decodes with `coder` in this process, whatever the isolation policy.
    func decodeInProcess(data: [UInt8], coder: PluginCoder, options: DecodeOptions, cancellation: CallContext?) throws -> Image {
        let context = cancellation ?? CallContext(limits: options.limits)
        let raw = try data.withUnsafeBytes { try coder.decodeRaw($0, options: options, context: context) }
        return try finish(raw, coder: coder, options: options)
    }

    public func encode(_ image: Image, format: String, options: EncodeOptions = EncodeOptions()) throws -> [UInt8] {
        guard let coder = encoder(for: format) else { throw PipelineError.noEncoder(format: format) }
        return try coder.encode([image], options: options)
    }

    /// Encodes an animation; a coder that cannot write animations gets only the first frame.
    public func encode(frames: [Image], format: String, options: EncodeOptions = EncodeOptions()) throws -> [UInt8] {
        guard let coder = encoder(for: format), let first = frames.first else { throw PipelineError.noEncoder(format: format) }
        return try coder.encode(coder.descriptor.capabilities.contains(.animated) ? frames : [first], options: options)
    }

    /// Every frame of an animation (bounded by `options.limits.maxFrames`), or the one image of a still source.
    public func allFrames(data: [UInt8], options: DecodeOptions = DecodeOptions()) throws -> [Image] {
        guard let coder = coder(forData: data), coder.descriptor.capabilities.contains(.animated) else {
            return [try decode(data: data, options: options)]
        }
        return try frames(data: data, options: options).readAll()
    }

    /// Reads the frames of an animation lazily. For a still image, use `decode`.
    public func frames(data: [UInt8], options: DecodeOptions = DecodeOptions()) throws -> FrameReader {
        try FrameReader(coder: try chooseCoder(for: data, options: options), manager: self, data: data, options: options)
    }

    func chooseCoder(for data: [UInt8], options: DecodeOptions) throws -> PluginCoder {
        try checkInputSize(data, options: options)
        guard let coder = coder(forData: data) else {
            throw PipelineError.unknownFormat(bytesSeen: min(data.count, 4096), hint: data.isEmpty ? "empty input" : "")
        }
        return coder
    }

    func checkInputSize(_ data: [UInt8], options: DecodeOptions) throws {
        if options.limits.maxInputBytes > 0, data.count > options.limits.maxInputBytes {
            throw PipelineError.decodingFailed(coder: "host", status: .limitExceeded,
                                               message: "input of \(data.count) bytes exceeds the limit of \(options.limits.maxInputBytes)")
        }
    }

    /// Resample and tint what the coder did not. Every buffer it is about to allocate is checked first against the
    /// request's pixel limit (outputs and upscales, not only what the coder decoded) and memory budget (the decoded
    /// image, the resampler's intermediate rows and the output held at once), so an oversized request fails at
    /// once instead of running for seconds and gigabytes.
    func finish(_ image: Image, coder: PluginCoder, options: DecodeOptions) throws -> Image {
        var result = image
        let caps = coder.descriptor.capabilities
        let limits = options.limits
        if !caps.contains(.scales), options.thumbnailSize != nil {
            let placement = Placement(sourceWidth: image.width, sourceHeight: image.height, request: options.thumbnailSize,
                                      mode: options.scaleMode, allowUpscale: options.allowUpscale)
            if !placement.isIdentity || placement.outputWidth != image.width || placement.outputHeight != image.height {
                try limits.checkOutput(width: placement.outputWidth, height: placement.outputHeight)
                try limits.checkMemory(holding: image.byteCount,
                                       adding: ImageTransformers.Resize.workingBytes(image, to: placement))
                result = try ImageTransformers.Resize.resample(result, to: placement)
            }
        }
        // Colour after resampling (fewer pixels), before tint; a template tint replaces every colour anyway.
        if !options.template || options.tint == nil {
            let eightBit = !options.highBitDepth && result.pixelFormat == .rgba16
            result = try ColorConversion.apply(result, output: options.colorOutput,
                                               eightBit: eightBit, limits: limits)
        }
        if options.template, let tint = options.tint, !caps.contains(.tints) {
            try limits.checkMemory(holding: result.byteCount, adding: result.byteCount)
            result = try ImageTransformers.Tint.template(result, color: tint)
        }
        return result
    }
}
