/// What a loader reported when the headers were in.
public struct LoadResponse: Sendable, Equatable {
    /// HTTP status, or 0 for loaders without one (files).
    public let statusCode: Int
    /// Content-Length or file size; nil when unknown.
    public let expectedSize: Int?
    public let contentType: String?
    /// The URL after redirects.
    public let effectiveURL: String?
    /// The final response's header lines as sent (loaders of ABI 1.1 report them; empty from 1.0 loaders and files).
    public let headers: [Header]

    public struct Header: Sendable, Equatable {
        public let name: String
        public let value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(statusCode: Int, expectedSize: Int?, contentType: String?, effectiveURL: String?, headers: [Header] = []) {
        self.statusCode = statusCode
        self.expectedSize = expectedSize
        self.contentType = contentType
        self.effectiveURL = effectiveURL
        self.headers = headers
    }

    /// The last value of a header, by case-insensitive name.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.last { $0.name.lowercased() == wanted }?.value
    }
}

/// Host-side hooks around one load (SDWebImage's request and response modifiers).
public struct LoadHooks: Sendable {
    /// Decides whether a response is acceptable; throw to reject it (the transfer stops at once).
    public var validateResponse: @Sendable (LoadResponse) throws -> Void
    /// Bytes received so far and the expected total.
    public var progress: (@Sendable (Int, Int?) -> Void)?
    /// Every byte received so far, offered at geometrically growing sizes (each at least 1.5x the last, so the
    /// copies add up to a few times the body) for incremental decoding.
    public var snapshot: (@Sendable ([UInt8]) -> Void)?
    /// Asked before each redirect hop a loader would follow (status, absolute target): false refuses it, and the load
    /// fails with status `.refused` without contacting the target. nil: every hop the load options allow is fine.
    /// Needs a loader of ABI 1.1; a 1.0 loader follows redirects without asking, so a caller that must vet every hop
    /// also sets `LoadOptions.maxRedirects` to 0 for loaders that cannot ask.
    public var approveRedirect: (@Sendable (Int, String) -> Bool)?

    public init(validateResponse: @escaping @Sendable (LoadResponse) throws -> Void = LoadHooks.acceptSuccess,
                progress: (@Sendable (Int, Int?) -> Void)? = nil, snapshot: (@Sendable ([UInt8]) -> Void)? = nil,
                approveRedirect: (@Sendable (Int, String) -> Bool)? = nil) {
        self.validateResponse = validateResponse
        self.progress = progress
        self.snapshot = snapshot
        self.approveRedirect = approveRedirect
    }

    /// The default: 2xx (or a loader without statuses) passes; 404 and 410 are permanent "not found"; other
    /// statuses are I/O failures that may be retried.
    public static let acceptSuccess: @Sendable (LoadResponse) throws -> Void = { response in
        guard response.statusCode != 0, !(200..<300).contains(response.statusCode) else { return }
        throw HTTPStatusError(statusCode: response.statusCode)
    }
}

/// A response rejected for its status code.
public struct HTTPStatusError: Error, Sendable, CustomStringConvertible {
    public let statusCode: Int
    public init(statusCode: Int) { self.statusCode = statusCode }
    public var description: String {
        (300..<400).contains(statusCode) ? "HTTP status \(statusCode) (a redirect, not followed)" : "HTTP status \(statusCode)"
    }
    var pluginStatus: PluginStatus { statusCode == 404 || statusCode == 410 ? .notFound : .io }
}

/// What a shared fetch reports to its waiters.
enum FetchEvent: Sendable {
    case progress(received: Int, expected: Int?)
    /// All bytes so far (see `LoadHooks.snapshot`).
    case snapshot([UInt8])
}
