/// The isolation policy of the coders manager: which decodes and probes go to its worker pool.
///
/// Coder selection (magic bytes, and a coder's sniff where a pattern asks for it; see CoderRoute) stays in the host; the chosen
/// coder's probe or decode, and the finishing (resample, tint), run in a worker. A worker runs the very same
/// finishing code, so the pixels are identical either way.
extension CodersManager {
    /// Where requests that do not name a policy run (`decode(data:options:)`, the image manager), and the pool
    /// isolated ones go to. Default `Isolator.noWorkers`: automatic, with no pool, so everything runs in process.
    /// Replacing it does not end the old one's workers: its owner calls `shutdown`.
    public var isolator: Isolator {
        get { isolatorSlot.withLock { $0 } }
        set { isolatorSlot.withLock { $0 = newValue } }
    }

    /// Decodes under an explicit isolation policy. `timeout` (seconds) bounds the decode wherever it runs: an
    /// isolated one is killed with its worker (default: the pool's timeout); an in-process one is cancelled at the
    /// deadline and fails with `timedOutInProcess` once its coder reaches a cancellation check (every coder here
    /// polls between rows, tiles or frames; librsvg and poppler cannot be interrupted, which is why they are
    /// isolated by default).
    public func decode(data: [UInt8], options: DecodeOptions = DecodeOptions(), isolation: Isolation, timeout: Double? = nil) throws -> Image {
        try decode(data: data, options: options, isolation: isolation, timeout: timeout, cancellation: nil)
    }

    /// Probes under an explicit isolation policy.
    public func probe(data: [UInt8], options: DecodeOptions = DecodeOptions(), isolation: Isolation, timeout: Double? = nil) throws -> ImageInfo {
        try probe(data: data, options: options, policy: isolation, timeout: timeout)
    }

    func decode(data: [UInt8], options: DecodeOptions, isolation: Isolation?, timeout: Double?, cancellation: CallContext?,
                route given: CoderRoute? = nil) throws -> Image {
        try route(data, options: options, isolation: isolation, given: given) { coder in
            guard let timeout else { return try decodeInProcess(data: data, coder: coder, options: options, cancellation: cancellation) }
            return try InProcessDeadline.run(seconds: timeout, context: cancellation ?? CallContext(limits: options.limits)) { context in
                try decodeInProcess(data: data, coder: coder, options: options, cancellation: context)
            }
        } isolated: { pool, coder, confirm in
            try data.withUnsafeBytes {
                try pool.decode($0, coderID: coder.descriptor.id, options: options, timeout: timeout, cancellation: cancellation,
                                confirmWithSniff: confirm, pluginPath: coder.pluginPath)
            }
        }
    }

    func probe(data: [UInt8], options: DecodeOptions, policy: Isolation?, timeout: Double?, route given: CoderRoute? = nil) throws -> ImageInfo {
        try route(data, options: options, isolation: policy, given: given) { coder in
            try data.withUnsafeBytes { try coder.probe($0, options: options) }
        } isolated: { pool, coder, confirm in
            try data.withUnsafeBytes {
                try pool.probe($0, coderID: coder.descriptor.id, options: options, timeout: timeout, cancellation: nil,
                               confirmWithSniff: confirm, pluginPath: coder.pluginPath)
            }
        }
    }

    /// The source's Exif and XMP as `policy` keeps them, for an encoder to embed; nil when the policy keeps none,
    /// the source has none, or its coder runs isolated (the worker protocol carries the summary, not the blocks:
    /// the isolated coders are the vector ones, whose files hold no Exif). A probe that fails keeps nothing
    /// rather than failing the render: the decode that follows reports a bad file.
    /// `route`: one already made for these bytes (no second sniff).
    public func keptMetadata(of data: [UInt8], policy: MetadataPolicy, options: DecodeOptions = DecodeOptions(),
                             route given: CoderRoute? = nil) -> KeptMetadata? {
        guard policy != .none, let route = given ?? (try? route(for: data, options: options)), !route.isIsolated,
              let probed = try? data.withUnsafeBytes({ try route.coder.probeWithBlocks($0, options: options) }) else { return nil }
        return policy.kept(exif: probed.exif, xmp: probed.xmp)
    }

    /// The pool a request for `coder` goes to under `isolation` (nil = the manager's default), or nil for in process.
    func pool(for coder: PluginCoder, isolation: Isolation?) throws -> WorkerPool? {
        let isolator = self.isolator
        let pool = isolator.pool
        switch isolation ?? isolator.policy {
        case .inProcess:
            return nil
        case .automatic:
            return coder.descriptor.capabilities.contains(.recommendsIsolation) ? pool : nil
        case .isolated:
            guard let pool else {
                throw PipelineError.invalidArgument("isolated decoding needs a worker pool (CodersManager.isolator)")
            }
            return pool
        }
    }
}

