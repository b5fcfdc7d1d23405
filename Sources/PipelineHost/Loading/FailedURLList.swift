import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// URLs that failed permanently (not found, undecodable), so they are not fetched again until their entry expires
/// or a request asks to retry (SDWebImage's failed-URL blacklist, with an expiry).
final class FailedURLList: Sendable {
    private let entries = Mutex<[String: (error: PipelineError, until: Double)]>([:])
    let lifetime: Double

    init(lifetime: Double) { self.lifetime = lifetime }

    static func now() -> Double { LinuxSystem.now() }

    /// The remembered failure, if the URL is on the list and the entry has not expired.
    func failure(for key: String) -> PipelineError? {
        entries.withLock { list in
            guard let entry = list[key] else { return nil }
            if entry.until < Self.now() { list[key] = nil; return nil }
            return entry.error
        }
    }

    func record(_ error: PipelineError, for key: String) {
        guard Self.isPermanent(error) else { return }
        entries.withLock { $0[key] = (error, Self.now() + lifetime) }
    }

    func remove(_ key: String) { entries.withLock { $0[key] = nil } }

    /// Not found, or bytes no coder can read: retrying soon would fail the same way. Timeouts, cuts and 5xx are not.
    static func isPermanent(_ error: PipelineError) -> Bool {
        switch error {
        case .loadingFailed(_, _, let status, _): status == .notFound || status == .unsupported
        case .unknownFormat: true
        case .decodingFailed(_, let status, _): status == .invalidData || status == .unsupported
        default: false
        }
    }
}
