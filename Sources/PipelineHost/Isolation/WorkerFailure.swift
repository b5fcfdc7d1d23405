/// A failure inside a worker, carried to the host as JSON and rebuilt there as the `PipelineError` an in-process
/// decode would have thrown, so callers see the same typed errors whichever way a coder ran.
enum WorkerFailure: Codable, Equatable {
    case decodingFailed(coder: String, status: PluginStatus, message: String)
    case unknownFormat(bytesSeen: Int, hint: String)
    case pluginMisbehaved(plugin: String, message: String)
    case invalidArgument(String)
    case outOfMemory(bytes: Int)
    case cancelled
    case pixelLimitExceeded(width: Int, height: Int, limit: Int)
    case memoryBudgetExceeded(bytes: Int, budget: Int)
    /// The coder's sniff declined the bytes (a request with `confirmWithSniff`): the host tries its next candidate.
    case notThisCoder(coder: String)
    /// Anything else, as text.
    case other(String)

    init(_ error: Error) {
        guard let error = error as? PipelineError else { self = .other("\(error)"); return }
        switch error {
        case .decodingFailed(let coder, let status, let message): self = .decodingFailed(coder: coder, status: status, message: message)
        case .unknownFormat(let seen, let hint): self = .unknownFormat(bytesSeen: seen, hint: hint)
        case .pluginMisbehaved(let plugin, let message): self = .pluginMisbehaved(plugin: plugin, message: message)
        case .invalidArgument(let message): self = .invalidArgument(message)
        case .outOfMemory(let bytes): self = .outOfMemory(bytes: bytes)
        case .cancelled: self = .cancelled
        case .pixelLimitExceeded(let width, let height, let limit): self = .pixelLimitExceeded(width: width, height: height, limit: limit)
        case .memoryBudgetExceeded(let bytes, let budget): self = .memoryBudgetExceeded(bytes: bytes, budget: budget)
        default: self = .other(error.description)
        }
    }

    /// True when the coder ran out of memory: under the worker's address-space cap that means the cap was hit.
    var isOutOfMemory: Bool {
        switch self {
        case .outOfMemory: true
        case .decodingFailed(_, let status, _): status == .noMemory
        default: false
        }
    }

    var error: PipelineError {
        switch self {
        case .decodingFailed(let coder, let status, let message): .decodingFailed(coder: coder, status: status, message: message)
        case .unknownFormat(let seen, let hint): .unknownFormat(bytesSeen: seen, hint: hint)
        case .pluginMisbehaved(let plugin, let message): .pluginMisbehaved(plugin: plugin, message: message)
        case .invalidArgument(let message): .invalidArgument(message)
        case .outOfMemory(let bytes): .outOfMemory(bytes: bytes)
        case .cancelled: .cancelled
        case .pixelLimitExceeded(let width, let height, let limit): .pixelLimitExceeded(width: width, height: height, limit: limit)
        case .memoryBudgetExceeded(let bytes, let budget): .memoryBudgetExceeded(bytes: bytes, budget: budget)
        case .notThisCoder(let coder): .unknownFormat(bytesSeen: 0, hint: "\(coder) declined the bytes")
        case .other(let message): .pluginMisbehaved(plugin: "imagepipe-worker", message: message)
        }
    }
}
