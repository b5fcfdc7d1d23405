import Synchronization

/// Chooses a coder for each request and finishes what the coder leaves to the host.
///
/// What the coder leaves to the host (resampling, colour, template tint) is done by the one `FinishingStep`, so
/// every caller sees the same result whichever coder ran and wherever it ran.
///
/// Isolation (CodersManager+Isolation.swift): with an `isolator` that has a pool, probes and decodes of some coders
/// run in sandboxed worker processes, per its policy or per call.
public final class CodersManager: ImageDecoding, ImageEncoding {
    public let coders: [PluginCoder]
    let isolatorSlot = Mutex(Isolator.noWorkers)
    /// Reported instead of "no coder" when the search path loaded no plugin at all (PluginHost sets it), so the
    /// user learns that nothing is installed and where the host looked, not that one format is missing.
    let nothingInstalled: PipelineError?

    public init(coders: [PluginCoder], nothingInstalled: PipelineError? = nil) {
        self.coders = coders
        self.nothingInstalled = nothingInstalled
    }

    /// `error`, or the nothing-installed error when there are no coders at all.
    func noCoder(_ error: PipelineError) -> PipelineError { coders.isEmpty ? nothingInstalled ?? error : error }

    /// The coder sniffing picks for these bytes, or nil.
    public func coder(forData data: [UInt8]) -> PluginCoder? {
        data.withUnsafeBytes { CoderSelection.choose(for: $0, among: coders) }
    }

    /// The first coder that encodes `format` (a format name such as "png" or a file extension such as "jpg").
    public func encoder(for format: String) -> PluginCoder? {
        coders.first { $0.canEncode(format: format) }
    }

    public func canDecode(_ data: [UInt8]) -> Bool { coder(forData: data) != nil }
    public func canEncode(format: String) -> Bool { encoder(for: format) != nil }

    public func probe(data: [UInt8], options: DecodeOptions = DecodeOptions()) throws -> ImageInfo {
        try probe(data: data, options: options, policy: nil, timeout: nil)
    }

    /// Probes along a route already made for these bytes (no second sniff).
    public func probe(data: [UInt8], options: DecodeOptions = DecodeOptions(), route: CoderRoute) throws -> ImageInfo {
        try probe(data: data, options: options, policy: nil, timeout: nil, route: route)
    }

    public func decode(data: [UInt8], options: DecodeOptions = DecodeOptions()) throws -> Image {
        try decode(data: data, options: options, cancellation: nil)
    }

    /// Decodes with a cancellation context the caller can fire from another thread.
    func decode(data: [UInt8], options: DecodeOptions, cancellation: CallContext?) throws -> Image {
        try decode(data: data, options: options, isolation: nil, timeout: nil, cancellation: cancellation)
    }

    /// What the chosen coder itself returns for `options`, before the host finishes it (resampling, tint, colour):
    /// lets a plugin's tests see its shrink-on-load, which the finished image hides. In this process.
    package func decodeUnfinished(data: [UInt8], options: DecodeOptions = DecodeOptions()) throws -> Image {
        guard let coder = coder(forData: data) else { throw PipelineError.decodingFailed(coder: "-", status: .unsupported, message: "no coder") }
        let context = CallContext(limits: options.limits)
        return try data.withUnsafeBytes { try coder.decodeRaw($0, options: options, context: context) }
    }

    /// Decodes with `coder` in this process, whatever the isolation policy.
    func decodeInProcess(data: [UInt8], coder: PluginCoder, options: DecodeOptions, cancellation: CallContext?) throws -> Image {
        let context = cancellation ?? CallContext(limits: options.limits)
        return try data.withUnsafeBytes { try DecodePlan.decode($0, coder: coder, options: options, context: context) }
    }

    public func encode(_ image: Image, format: String, options: EncodeOptions = EncodeOptions()) throws -> [UInt8] {
        try encode(image, format: format, options: options, metadata: nil)
    }

    /// `metadata`: the source's blocks as `options.keepMetadata` keeps them (`MetadataPolicy.kept`), nil for none.
    public func encode(_ image: Image, format: String, options: EncodeOptions, metadata: KeptMetadata?) throws -> [UInt8] {
        guard let coder = encoder(for: format) else { throw noCoder(.noEncoder(format: format)) }
        return try ByteBudget.encode(options) { try coder.encode([image], options: $0, metadata: metadata) }.bytes
    }

    /// Encodes an animation, or pages for a multipage format (TIFF, HEIF: each frame a page); any other coder gets
    /// only the first frame.
    public func encode(frames: [Image], format: String, options: EncodeOptions = EncodeOptions(),
                       metadata: KeptMetadata? = nil) throws -> [UInt8] {
        guard let coder = encoder(for: format), let first = frames.first else { throw noCoder(.noEncoder(format: format)) }
        let keepsEvery = !coder.descriptor.capabilities.isDisjoint(with: [.animated, .multipage])
        return try ByteBudget.encode(options) { try coder.encode(keepsEvery ? frames : [first], options: $0, metadata: metadata) }.bytes
    }

    /// The request's input limit, checked before any coder sees the bytes (the manager's routes and a lone coder's).
    static func checkInputSize(_ data: [UInt8], options: DecodeOptions) throws {
        if options.limits.maxInputBytes > 0, data.count > options.limits.maxInputBytes {
            throw PipelineError.decodingFailed(coder: "host", status: .limitExceeded,
                                               message: "input of \(data.count) bytes exceeds the limit of \(options.limits.maxInputBytes)")
        }
    }
}
