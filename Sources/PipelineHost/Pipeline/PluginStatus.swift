import PluginAPI

/// The ABI's status codes as a Swift enum, mapped 1:1 (status.h).
public enum PluginStatus: Int32, Sendable, Codable, CustomStringConvertible {
    case ok = 0
    case needMore = 1
    case unsupported = 2
    case invalidData = 3
    case truncated = 4
    case limitExceeded = 5
    case cancelled = 6
    case io = 7
    case noMemory = 8
    case internalError = 9
    case notFound = 10
    case end = 11
    case refused = 12

    /// Maps a raw status; a code outside the ABI's list is a plugin bug and reads as internalError.
    init(abi: ip_status) { self = PluginStatus(rawValue: abi) ?? .internalError }

    public var description: String {
        switch self {
        case .ok: "ok"
        case .needMore: "need more data"
        case .unsupported: "unsupported"
        case .invalidData: "invalid data"
        case .truncated: "truncated"
        case .limitExceeded: "limit exceeded"
        case .cancelled: "cancelled"
        case .io: "I/O error"
        case .noMemory: "out of memory"
        case .internalError: "internal error"
        case .notFound: "not found"
        case .end: "end"
        case .refused: "refused"
        }
    }
}
