/// Every failure the pipeline reports, with its cause and a stable numeric code. Codable, so a failure inside an
/// isolated worker reaches the host whole (`WorkerFailure`).
///
/// Code ranges by domain: 1xxx loading, 2xxx decoding/encoding, 3xxx plugin/ABI, 4xxx cache, 5xxx usage, 6xxx isolation.
/// Within a domain, a plugin status maps onto `base + status` so the C status survives into logs and exit codes.
public enum PipelineError: Error, Sendable, CustomStringConvertible, Equatable, Codable {
    /// A loader failed (file missing, HTTP error, limit).
    case loadingFailed(url: String, loader: String, status: PluginStatus, message: String)
    /// No loader handles the URL's scheme.
    case noLoader(url: String, scheme: String)
    /// The search path held no plugin that loaded, so nothing can be loaded, decoded or encoded: each searched
    /// folder with what was there ("missing", "empty", "2 refused").
    case noPlugins(searched: [String])
    /// No coder recognised the bytes.
    case unknownFormat(bytesSeen: Int, hint: String)
    /// A coder failed.
    case decodingFailed(coder: String, status: PluginStatus, message: String)
    /// No coder can encode the format.
    case noEncoder(format: String)
    case encodingFailed(coder: String, status: PluginStatus, message: String)
    /// A plugin broke the ABI's rules at run time (bad image struct, unknown pixel format).
    case pluginMisbehaved(plugin: String, message: String)
    case cacheFailed(cache: String, status: PluginStatus, message: String)
    /// The fetch policy allowed only cached results and there was none.
    case notInCache(url: String)
    case invalidArgument(String)
    case outOfMemory(bytes: Int)
    case cancelled
    /// An isolated coder's worker process died of `signal` (0: it exited on its own); the worker was replaced.
    case decoderCrashed(coder: String, signal: Int32)
    /// An isolated decode was still running after `after` seconds; its worker was killed and replaced.
    case timedOut(after: Double)
    /// An in-process decode passed its deadline: the host cancelled the call and the coder stopped at its next
    /// cancellation check.
    case timedOutInProcess(after: Double)
    /// An isolated decode needed more than its worker's memory cap of `limit` bytes; the worker was replaced.
    case memoryLimitExceeded(limit: Int)
    /// An image the host was about to produce (output, upscale, intermediate) is larger than the pixel or
    /// dimension limit; refused before allocating.
    case pixelLimitExceeded(width: Int, height: Int, limit: Int)
    /// The request would hold `bytes` of pixels at once, more than its memory budget (`DecodeLimits.maxMemoryBytes`).
    case memoryBudgetExceeded(bytes: Int, budget: Int)

    /// The plugin status behind the error, where there is one.
    public var status: PluginStatus? {
        switch self {
        case .loadingFailed(_, _, let s, _), .decodingFailed(_, let s, _), .encodingFailed(_, let s, _),
             .cacheFailed(_, let s, _): s
        case .cancelled: .cancelled
        case .outOfMemory: .noMemory
        case .unknownFormat, .noEncoder: .unsupported
        case .noLoader: .unsupported
        case .noPlugins: .notFound
        case .pluginMisbehaved: .internalError
        case .invalidArgument: nil
        case .notInCache: .notFound
        case .decoderCrashed: .internalError
        case .timedOut, .timedOutInProcess: .limitExceeded
        case .memoryLimitExceeded: .noMemory
        case .pixelLimitExceeded, .memoryBudgetExceeded: .limitExceeded
        }
    }

    /// Stable code for scripts and logs.
    public var code: Int {
        switch self {
        case .loadingFailed(_, _, let s, _): 1000 + Int(s.rawValue)
        case .noLoader: 1100
        case .noPlugins: 1200
        case .decodingFailed(_, let s, _): 2000 + Int(s.rawValue)
        case .unknownFormat: 2100
        case .encodingFailed(_, let s, _): 2200 + Int(s.rawValue)
        case .noEncoder: 2300
        case .pluginMisbehaved: 3000
        case .cacheFailed(_, let s, _): 4000 + Int(s.rawValue)
        case .notInCache: 4100
        case .invalidArgument: 5000
        case .outOfMemory: 5001
        case .cancelled: 5002
        case .decoderCrashed: 6001
        case .timedOut: 6002
        case .timedOutInProcess: 6004
        case .memoryLimitExceeded: 6003
        case .pixelLimitExceeded: 5003
        case .memoryBudgetExceeded: 5004
        }
    }

    private static func mebibytes(_ bytes: Int) -> String {
        bytes == Int.max ? "more than 8 EiB" : bytes < 1 << 20 ? "\(bytes) bytes" : "\((bytes + (1 << 19)) >> 20) MiB"
    }

    public var description: String {
        switch self {
        case .loadingFailed(let url, let loader, let status, let message):
            "cannot load \(url): \(message.isEmpty ? status.description : message) (\(loader), \(status))"
        case .noLoader(let url, let scheme): "no loader handles '\(scheme)' URLs (\(url))"
        case .noPlugins(let searched):
            "no imagepipe plugins found (searched: \(searched.isEmpty ? "nothing, the search path is empty" : searched.joined(separator: ", "))); "
                + "install them ('make install' or the imagepipe package), or name a plugins.d folder with --plugin-dir, "
                + "IMAGEPIPE_PLUGIN_PATH or PluginSearchPath(directories:)"
        case .unknownFormat(let seen, let hint):
            "unrecognised image format\(hint.isEmpty ? "" : " (\(hint))"): no coder matched the first \(seen) bytes"
        case .decodingFailed(let coder, let status, let message):
            "\(message.isEmpty ? status.description : message) (\(coder), \(status))"
        case .noEncoder(let format): "no coder can encode '\(format)'"
        case .encodingFailed(let coder, let status, let message):
            "encoding failed: \(message.isEmpty ? status.description : message) (\(coder), \(status))"
        case .pluginMisbehaved(let plugin, let message): "plugin \(plugin) broke the ABI: \(message)"
        case .cacheFailed(let cache, let status, let message): "cache \(cache): \(message) (\(status))"
        case .notInCache(let url): "\(url) is not in the cache and the fetch policy forbids loading it"
        case .invalidArgument(let message): message
        case .outOfMemory(let bytes): "cannot allocate \(bytes) bytes"
        case .cancelled: "cancelled"
        case .decoderCrashed(let coder, let signal):
            signal == 0 ? "the decoder \(coder) exited unexpectedly in its isolated worker"
                : "the decoder \(coder) crashed (\(LinuxSystem.signalName(signal))) in its isolated worker"
        case .timedOut(let seconds): "decoding timed out after \(seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)) s; the isolated worker was stopped"
        case .timedOutInProcess(let seconds):
            "decoding timed out after \(seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)) s; the decoder was cancelled"
        case .memoryLimitExceeded(let limit): "decoding exceeded the isolated worker's memory limit of \(limit >> 20) MiB"
        case .pixelLimitExceeded(let width, let height, let limit):
            "a \(width)x\(height) result exceeds the pixel limit of \(limit)"
        case .memoryBudgetExceeded(let bytes, let budget):
            "the request needs \(Self.mebibytes(bytes)) of pixel memory, over its budget of \(Self.mebibytes(budget))"
        }
    }
}
