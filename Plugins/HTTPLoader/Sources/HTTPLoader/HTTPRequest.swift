import CCurl
import PluginAPI
import PluginKit

/// One load request, copied out of the host's `ip_load_request` and checked, with the loader's defaults applied.
///
/// Everything the ABI borrows "until start() returns" is copied here, so the transfer never reads host memory.
struct HTTPRequest: Sendable {
    static let defaultTimeoutMilliseconds: UInt32 = 60_000
    static let defaultConnectTimeoutMilliseconds: UInt32 = 10_000
    static let defaultMaxRedirects: UInt32 = 10
    /// A server that accepts a connection and never answers fails after this, not after the whole timeout.
    static let defaultFirstByteTimeoutMilliseconds: UInt32 = 30_000

    let url: String
    /// Extra "Name: value" lines, each free of CR and LF.
    let headers: [String]
    /// 0 = no limit.
    let maxBytes: UInt64
    let timeoutMilliseconds: UInt32
    let connectTimeoutMilliseconds: UInt32
    let maxRedirects: UInt32
    /// At most the whole-transfer timeout.
    let firstByteTimeoutMilliseconds: UInt32
    /// IP_LOAD_REFUSE_PRIVATE_ADDRESSES.
    let refusePrivateAddresses: Bool
    /// False with IP_LOAD_NO_REDIRECTS.
    let followsRedirects: Bool

    init(copying pointer: UnsafePointer<ip_load_request>?) throws {
        guard let pointer else { throw PluginFailure.internalError("start called without a request") }
        let raw = try ABIStruct.read(pointer, named: "ip_load_request")
        guard let cURL = raw.url else { throw PluginFailure.internalError("the load request has no URL") }
        url = String(cString: cURL)
        try Self.checkURL(url)
        var lines: [String] = []
        if var cursor = raw.headers {
            while let line = cursor.pointee {
                lines.append(try Self.checkedHeader(String(cString: line)))
                cursor += 1
            }
        }
        headers = lines
        maxBytes = raw.max_bytes
        timeoutMilliseconds = raw.timeout_ms == 0 ? Self.defaultTimeoutMilliseconds : raw.timeout_ms
        connectTimeoutMilliseconds =
            raw.connect_timeout_ms == 0 ? Self.defaultConnectTimeoutMilliseconds : raw.connect_timeout_ms
        maxRedirects = raw.max_redirects == 0 ? Self.defaultMaxRedirects : raw.max_redirects
        firstByteTimeoutMilliseconds = min(
            raw.first_byte_timeout_ms == 0 ? Self.defaultFirstByteTimeoutMilliseconds : raw.first_byte_timeout_ms,
            timeoutMilliseconds)
        refusePrivateAddresses = raw.flags & UInt32(IP_LOAD_REFUSE_PRIVATE_ADDRESSES) != 0
        followsRedirects = raw.flags & UInt32(IP_LOAD_NO_REDIRECTS) == 0
    }

    /// Parses the URL with libcurl's own parser, so what is accepted here is exactly what the transfer will use,
    /// and refuses schemes other than http and https before any connection is made.
    private static func checkURL(_ url: String) throws {
        guard let handle = curl_url() else { throw PluginFailure(IP_STATUS_NO_MEMORY, "cannot allocate a URL parser") }
        defer { curl_url_cleanup(handle) }
        let parsed = curl_url_set(handle, CURLUPART_URL, url, 0)
        guard parsed == CURLUE_OK else {
            let reason = curl_url_strerror(parsed).map { String(cString: $0) } ?? "error \(parsed.rawValue)"
            throw PluginFailure.invalidData("malformed URL '\(url)': \(reason)")
        }
        var scheme: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK, let scheme else {
            throw PluginFailure.invalidData("URL without a scheme: '\(url)'")
        }
        defer { curl_free(scheme) }
        let name = String(cString: scheme).lowercased()
        guard name == "http" || name == "https" else {
            throw PluginFailure.unsupported("the HTTP loader reads http:// and https:// URLs, not \(name): URLs")
        }
    }

    /// A header line must not smuggle a second header or a body in through CR or LF.
    private static func checkedHeader(_ line: String) throws -> String {
        guard !line.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) else {
            throw PluginFailure.invalidData("request header contains a line break: '\(line.debugDescription)'")
        }
        guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
            throw PluginFailure.invalidData("request header is not 'Name: value': '\(line)'")
        }
        return line
    }
}
