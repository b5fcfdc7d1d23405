import PluginKit

/// `s3://bucket/key`, as the AWS CLI reads it: the key is taken literally (no percent-decoding; a space is a space),
/// and becomes a request URL with every byte outside RFC 3986's unreserved set (and '/') percent-encoded, which is
/// also the form SigV4's canonical request for S3 expects.
public struct S3Location: Sendable, Equatable {
    public let bucket: String
    public let key: String

    public init(bucket: String, key: String) {
        self.bucket = bucket
        self.key = key
    }

    public init(parsing url: String) throws {
        let prefix = "s3://"
        guard url.count > prefix.count, url.prefix(prefix.count).lowercased() == prefix else {
            throw PluginFailure.unsupported("the S3 loader reads s3://BUCKET/KEY URLs, not '\(url)'")
        }
        let rest = url.dropFirst(prefix.count)
        guard let slash = rest.firstIndex(of: "/") else {
            throw PluginFailure.invalidData("'\(url)' names a bucket and no object key (s3://BUCKET/KEY)")
        }
        bucket = String(rest[..<slash])
        key = String(rest[rest.index(after: slash)...])
        try Self.check(bucket: bucket, url: url)
        guard !key.isEmpty else { throw PluginFailure.invalidData("'\(url)' names a bucket and no object key (s3://BUCKET/KEY)") }
        guard key.utf8.count <= 1024 else { throw PluginFailure.invalidData("the key of '\(url)' is longer than S3's 1,024 bytes") }
        guard !key.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw PluginFailure.invalidData("the key of '\(url)' holds a control character")
        }
        // Literal in S3, but HTTP stacks between here and the store may collapse them (RFC 3986 dot segments), which
        // would read another object than the one named (and than the one a source policy allowed).
        guard !key.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == "." || $0 == ".." }) else {
            throw PluginFailure.invalidData("the key of '\(url)' has a '.' or '..' segment, which proxies and stores may collapse: refused")
        }
    }

    /// S3's bucket naming rules (3 to 63 lowercase letters, digits, dots and hyphens, starting and ending with a letter
    /// or digit), so a name can never inject a host, a port or a path into the request URL.
    public static func check(bucket: String, url: String) throws {
        let bytes = Array(bucket.utf8)
        let allowed = bytes.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2E || $0 == 0x2D }
        let edges = [bytes.first, bytes.last].allSatisfy { $0.map { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) } ?? false }
        guard (3...63).contains(bytes.count), allowed, edges, !bucket.contains("..") else {
            throw PluginFailure.invalidData("'\(bucket)' in '\(url)' is not an S3 bucket name (3-63 lowercase letters, digits, '.' and '-')")
        }
    }

    /// "s3://bucket/key", for messages.
    public var url: String { "s3://\(bucket)/\(key)" }

    /// The key, percent-encoded segment by segment ('/' kept).
    public var encodedKey: String { Self.percentEncoded(key, keepingSlash: true) }

    /// A query value as SigV4's canonical query expects it: everything outside RFC 3986's unreserved set encoded.
    public static func queryEncoded(_ value: String) -> String { percentEncoded(value, keepingSlash: false) }

    private static func percentEncoded(_ value: String, keepingSlash: Bool) -> String {
        var text = ""
        for byte in value.utf8 {
            if (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E || (keepingSlash && byte == 0x2F) {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let digits = Array("0123456789ABCDEF".utf8)
                text += "%" + String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return text
    }

    /// The object's HTTP(S) URL: path style (`endpoint/bucket/key`) or virtual-hosted (`bucket.host/key`). A bucket
    /// with a dot goes path style over https, as AWS's SDKs do (a dotted name breaks the wildcard certificate).
    public func requestURL(_ settings: S3Settings, query: String = "") -> String {
        let scheme = settings.endpoint?.scheme ?? "https"
        let host = settings.endpoint?.authority ?? "s3.\(settings.region).amazonaws.com"
        let virtual = settings.addressing == .virtual && !(scheme == "https" && bucket.contains("."))
        let path = virtual ? "\(scheme)://\(bucket).\(host)/\(encodedKey)" : "\(scheme)://\(host)/\(bucket)/\(encodedKey)"
        return query.isEmpty ? path : path + "?" + query
    }

    /// The bucket's own URL (a listing), addressed as `requestURL` addresses its objects.
    public func bucketURL(_ settings: S3Settings, query: String = "") -> String {
        let scheme = settings.endpoint?.scheme ?? "https"
        let host = settings.endpoint?.authority ?? "s3.\(settings.region).amazonaws.com"
        let virtual = settings.addressing == .virtual && !(scheme == "https" && bucket.contains("."))
        let path = virtual ? "\(scheme)://\(bucket).\(host)/" : "\(scheme)://\(host)/\(bucket)"
        return query.isEmpty ? path : path + "?" + query
    }
}
