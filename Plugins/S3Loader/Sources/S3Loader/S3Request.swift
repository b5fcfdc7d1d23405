import PluginAPI
import PluginKit
import S3Client

/// One load request, copied out of the host's `ip_load_request` (borrowed only until start returns) and checked.
/// Redirect and address flags do not apply: the store's address is the operator's configuration, not the URL's
/// (a MinIO on 10.0.0.5 is normal), and S3 answers a wrong region with an error, not a redirect to follow.
struct S3Request: Sendable {
    static let defaultTimeoutMilliseconds: UInt32 = 60_000
    static let defaultConnectTimeoutMilliseconds: UInt32 = 10_000
    static let defaultFirstByteTimeoutMilliseconds: UInt32 = 30_000

    let url: String
    /// "Name: value" lines from the host (its validators: If-None-Match, If-Modified-Since), signed with the rest.
    let headers: [String]
    let maxBytes: UInt64
    let timeoutMilliseconds: UInt32
    let connectTimeoutMilliseconds: UInt32
    let firstByteTimeoutMilliseconds: UInt32

    init(copying pointer: UnsafePointer<ip_load_request>?) throws {
        guard let pointer else { throw PluginFailure.internalError("start called without a request") }
        let raw = try ABIStruct.read(pointer, named: "ip_load_request")
        guard let cURL = raw.url else { throw PluginFailure.internalError("the load request has no URL") }
        url = String(cString: cURL)
        var lines: [String] = []
        if var cursor = raw.headers {
            while let line = cursor.pointee {
                let text = String(cString: line)
                guard !text.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }), let colon = text.firstIndex(of: ":"), colon != text.startIndex else {
                    throw PluginFailure.invalidData("request header is not one 'Name: value' line: '\(text.debugDescription)'")
                }
                // The signature's own headers are the loader's to write.
                let name = text[..<colon].lowercased()
                guard name != "authorization", !name.hasPrefix("x-amz-"), name != "host" else {
                    throw PluginFailure.invalidData("request header '\(text[..<colon])' is set by the S3 loader itself")
                }
                lines.append(text)
                cursor += 1
            }
        }
        headers = lines
        maxBytes = raw.max_bytes
        timeoutMilliseconds = raw.timeout_ms == 0 ? Self.defaultTimeoutMilliseconds : raw.timeout_ms
        connectTimeoutMilliseconds = raw.connect_timeout_ms == 0 ? Self.defaultConnectTimeoutMilliseconds : raw.connect_timeout_ms
        firstByteTimeoutMilliseconds = min(raw.first_byte_timeout_ms == 0 ? Self.defaultFirstByteTimeoutMilliseconds : raw.first_byte_timeout_ms,
                                           timeoutMilliseconds)
    }
}
