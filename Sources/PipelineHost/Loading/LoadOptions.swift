/// How to fetch bytes. Every field has a default.
public struct LoadOptions: Sendable, Hashable {
    /// Largest body accepted; nil = no limit beyond the decode limits. Default 512 MiB.
    public var maxBytes: Int?
    /// Whole-transfer timeout in seconds; nil = the loader's default.
    public var timeout: Double?
    public var connectTimeout: Double?
    /// Extra request headers ("Name: value").
    public var headers: [String]
    /// Redirects to follow (0: none, a 3xx is then the response); nil = the loader's default (10).
    public var maxRedirects: Int?
    /// Seconds until the response headers begin to arrive; nil = the loader's default (30 s for HTTP).
    public var firstByteTimeout: Double?
    /// Refuse loopback, private, link-local and other non-public destinations, checked on the resolved address of
    /// every connection and redirect (SSRF protection for a service that fetches URLs it is given). Default false:
    /// a command-line user fetching from their own network is not an attacker.
    public var refusePrivateAddresses: Bool

    public init(maxBytes: Int? = 512 << 20, timeout: Double? = nil, connectTimeout: Double? = nil,
                headers: [String] = [], maxRedirects: Int? = nil, firstByteTimeout: Double? = nil,
                refusePrivateAddresses: Bool = false) {
        self.maxBytes = maxBytes
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.headers = headers
        self.maxRedirects = maxRedirects
        self.firstByteTimeout = firstByteTimeout
        self.refusePrivateAddresses = refusePrivateAddresses
    }
}
