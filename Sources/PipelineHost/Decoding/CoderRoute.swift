/// The coder chosen for one source's bytes and where it runs, decided once and carried to every step that reads
/// those bytes (the decode, a page count, the frames), so that no step sniffs again.
///
/// A coder that runs in a worker and whose magic match needs its sniff is not sniffed here: the host would have to
/// load it (librsvg and its 40 libraries for SVG) only to ask. Such a route names the best candidate; the worker
/// confirms it with the request, and a refusal moves on to the candidates after it (`remaining`).
public struct CoderRoute: Sendable {
    /// The chosen coder; with `confirmInWorker`, the candidate its worker still confirms.
    public let coder: PluginCoder
    /// The pool the coder's work goes to; nil = this process.
    let pool: WorkerPool?
    let confirmInWorker: Bool
    /// Candidates after `coder`, in selection order, for a refusal in the worker.
    let remaining: [CoderSelection.Candidate]
    /// The policy the route was made under, applied again to `remaining`.
    let isolation: Isolation?

    /// Whether the coder runs in a sandboxed worker.
    public var isIsolated: Bool { pool != nil }
}

extension CodersManager {
    /// The route for `data`: CoderSelection's rule, under `isolation` (nil = the isolator's policy). Fails with
    /// `unknownFormat` when no coder claims the bytes, and with the input limit before any coder sees them.
    public func route(for data: [UInt8], options: DecodeOptions = DecodeOptions(), isolation: Isolation? = nil) throws -> CoderRoute {
        try Self.checkInputSize(data, options: options)
        let candidates = data.withUnsafeBytes { CoderSelection.candidates(for: $0, among: coders) }
        return try firstRoute(among: candidates[...], data: data, isolation: isolation)
    }

    /// Runs `inProcess` or `isolated` on `data` along `given` (made now when nil), moving to the next candidate
    /// when a worker's sniff declines.
    func route<T>(_ data: [UInt8], options: DecodeOptions, isolation: Isolation?, given: CoderRoute? = nil,
                  inProcess: (PluginCoder) throws -> T,
                  isolated: (WorkerPool, PluginCoder, Bool) throws -> T) throws -> T {
        try Self.checkInputSize(data, options: options)
        var route = try given ?? self.route(for: data, options: options, isolation: isolation)
        while true {
            guard let pool = route.pool else { return try inProcess(route.coder) }
            guard route.confirmInWorker else { return try isolated(pool, route.coder, false) }
            do {
                return try isolated(pool, route.coder, true)
            } catch PipelineError.unknownFormat {
                route = try firstRoute(among: route.remaining[...], data: data, isolation: route.isolation)
            }
        }
    }

    private func firstRoute(among candidates: ArraySlice<CoderSelection.Candidate>, data: [UInt8], isolation: Isolation?) throws -> CoderRoute {
        var rest = candidates
        while let candidate = rest.popFirst() {
            let pool = try pool(for: candidate.coder, isolation: isolation)
            if let pool, candidate.needsSniff {
                return CoderRoute(coder: candidate.coder, pool: pool, confirmInWorker: true, remaining: Array(rest), isolation: isolation)
            }
            if candidate.needsSniff, !data.withUnsafeBytes({ CoderSelection.confirms(candidate.coder, $0) }) { continue }
            return CoderRoute(coder: candidate.coder, pool: pool, confirmInWorker: false, remaining: [], isolation: isolation)
        }
        throw noCoder(.unknownFormat(bytesSeen: min(data.count, 4096), hint: data.isEmpty ? "empty input" : ""))
    }
}
