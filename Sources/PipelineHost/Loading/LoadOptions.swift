/// How to fetch bytes. Every field has a default.
public struct LoadOptions: Sendable, Hashable {
    /// Largest body accepted; nil = no limit beyond the decode limits. Default 512 MiB.
    public var maxBytes: Int?
    /// Whole-transfer timeout in seconds; nil = the loader's default.
    public var timeout: Double?
    public var connectTimeout: Double?
    /// Extra request headers ("Name: value").
    public var headers: [String]
    /// Redirects to follow; nil = the loader's default.
    public var maxRedirects: Int?

    public init(maxBytes: Int? = 512 << 20, timeout: Double? = nil, connectTimeout: Double? = nil,
                headers: [String] = [], maxRedirects: Int? = nil) {
        self.maxBytes = maxBytes
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.headers = headers
        self.maxRedirects = maxRedirects
    }
}
