/// A failure inside a worker, carried to the host as JSON: the `PipelineError` itself, whole (so callers see the
/// same typed error whichever way a coder ran, and no case is lost on the way), or one of the two outcomes that are
/// not pipeline errors.
enum WorkerFailure: Codable, Equatable {
    case pipeline(PipelineError)
    /// The coder's sniff declined the bytes (a request with `confirmWithSniff`): the host tries its next candidate.
    case notThisCoder(coder: String)
    /// An error of another kind (a Swift error from outside the pipeline), as text.
    case other(String)

    init(_ error: Error) {
        self = (error as? PipelineError).map { .pipeline($0) } ?? .other("\(error)")
    }

    /// True when the coder ran out of memory: under the worker's address-space cap that means the cap was hit.
    var isOutOfMemory: Bool {
        switch self {
        case .pipeline(.outOfMemory): true
        case .pipeline(.decodingFailed(_, let status, _)): status == .noMemory
        default: false
        }
    }

    var error: PipelineError {
        switch self {
        case .pipeline(let error): error
        case .notThisCoder(let coder): .unknownFormat(bytesSeen: 0, hint: "\(coder) declined the bytes")
        case .other(let message): .pluginMisbehaved(plugin: "imagepipe-worker", message: message)
        }
    }
}
