/// The isolation policy of the coders manager: which decodes and probes go to its worker pool.
///
/// Coder selection (magic bytes, and a coder's sniff where a pattern asks for it) stays in the host; the chosen
/// coder's probe or decode, and the finishing (resample, tint), run in a worker. A worker runs the very same
/// finishing code, so the pixels are identical either way.
extension CodersManager {
    /// The pool isolated requests go to; nil (the default) = every request runs in process.
    public var workerPool: WorkerPool? {
        get { isolationSettings.withLock { $0.pool } }
        set { isolationSettings.withLock { $0.pool = newValue } }
    }

    /// The policy for requests that do not name one (`decode(data:options:)`, the image manager). Default `.automatic`.
    public var defaultIsolation: Isolation {
        get { isolationSettings.withLock { $0.isolation } }
        set { isolationSettings.withLock { $0.isolation = newValue } }
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

    func decode(data: [UInt8], options: DecodeOptions, isolation: Isolation?, timeout: Double?, cancellation: CallContext?) throws -> Image {
        try route(data, options: options, isolation: isolation) { coder in
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

    func probe(data: [UInt8], options: DecodeOptions, policy: Isolation?, timeout: Double?) throws -> ImageInfo {
        try route(data, options: options, isolation: policy) { coder in
            try data.withUnsafeBytes { try coder.probe($0, options: options) }
        } isolated: { pool, coder, confirm in
            try data.withUnsafeBytes {
                try pool.probe($0, coderID: coder.descriptor.id, options: options, timeout: timeout, cancellation: nil,
                               confirmWithSniff: confirm, pluginPath: coder.pluginPath)
            }
        }
    }

    /// The coder that would decode `data` in this process under the default policy, or nil when the policy sends
    /// it to a worker (or nothing decodes it: the decode that follows reports why).
    func inProcessCoder(for data: [UInt8], options: DecodeOptions) throws -> PluginCoder? {
        do {
            return try route(data, options: options, isolation: nil) { coder in coder } isolated: { _, _, _ in nil }
        } catch PipelineError.unknownFormat {
            return nil
        }
    }

    /// CoderSelection's rule, with one difference for coders that run in a worker: when their magic match needs
    /// the coder's sniff, the worker asks it (`confirmWithSniff`) and a refusal moves on to the next candidate. The
    /// host therefore never loads a coder it isolates (librsvg and its 40 libraries for SVG) only to sniff.
    func route<T>(_ data: [UInt8], options: DecodeOptions, isolation: Isolation?,
                          inProcess: (PluginCoder) throws -> T,
                          isolated: (WorkerPool, PluginCoder, Bool) throws -> T) throws -> T {
        try Self.checkInputSize(data, options: options)
        let candidates = data.withUnsafeBytes { CoderSelection.candidates(for: $0, among: coders) }
        for candidate in candidates {
            let pool = try pool(for: candidate.coder, isolation: isolation)
            if let pool, candidate.needsSniff {
                do {
                    return try isolated(pool, candidate.coder, true)
                } catch PipelineError.unknownFormat {
                    continue  // the worker's sniff declined: the next candidate
                }
            }
            if candidate.needsSniff, !data.withUnsafeBytes({ CoderSelection.confirms(candidate.coder, $0) }) { continue }
            if let pool { return try isolated(pool, candidate.coder, false) }
            return try inProcess(candidate.coder)
        }
        throw noCoder(.unknownFormat(bytesSeen: min(data.count, 4096), hint: data.isEmpty ? "empty input" : ""))
    }

    /// The pool a request for `coder` goes to under `isolation` (nil = the manager's default), or nil for in process.
    func pool(for coder: PluginCoder, isolation: Isolation?) throws -> WorkerPool? {
        let (pool, fallback) = isolationSettings.withLock { ($0.pool, $0.isolation) }
        switch isolation ?? fallback {
        case .inProcess:
            return nil
        case .automatic:
            return coder.descriptor.capabilities.contains(.recommendsIsolation) ? pool : nil
        case .isolated:
            guard let pool else {
                throw PipelineError.invalidArgument("isolated decoding needs a worker pool (CodersManager.workerPool)")
            }
            return pool
        }
    }
}

/// The manager's mutable isolation state (set after the host is built, read per request).
struct IsolationSettings {
    var pool: WorkerPool?
    var isolation: Isolation = .automatic
}
