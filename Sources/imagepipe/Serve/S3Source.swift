/// `s3://bucket/key` as a service source: the key is literal (the S3 loader sends it as given, percent-encoded), so
/// an allowed prefix is compared byte for byte, on key-segment boundaries (`s3://b/pub` covers `s3://b/pub/x`, never
/// `s3://b/public/x`), and keys with `.`/`..` segments, control characters or an invalid bucket name are refused
/// before anything is fetched (a proxy or store that collapsed dot segments would read another object than the
/// one allowed).
struct S3Source: Sendable, Equatable {
    let bucket: String
    let key: String

    struct Refusal: Error { let reason: String }

    init(parsing text: String, allowEmptyKey: Bool = false) throws {
        guard text.count > 5, text.prefix(5).lowercased() == "s3://" else { throw Refusal(reason: "not an s3:// URL") }
        let rest = text.dropFirst(5)
        let slash = rest.firstIndex(of: "/")
        bucket = String(rest[..<(slash ?? rest.endIndex)])
        key = slash.map { String(rest[rest.index(after: $0)...]) } ?? ""
        let bytes = Array(bucket.utf8)
        let letterOrDigit: (UInt8) -> Bool = { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
        guard (3...63).contains(bytes.count), bytes.allSatisfy({ letterOrDigit($0) || $0 == 0x2E || $0 == 0x2D }),
              letterOrDigit(bytes[0]), letterOrDigit(bytes[bytes.count - 1]), !bucket.contains("..") else {
            throw Refusal(reason: "'\(bucket)' is not an S3 bucket name")
        }
        guard allowEmptyKey || !key.isEmpty else { throw Refusal(reason: "no object key") }
        guard key.utf8.count <= 1024, !key.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw Refusal(reason: "a control character or more than 1,024 bytes in the key")
        }
        guard !key.split(separator: "/", omittingEmptySubsequences: false).dropLast(key.hasSuffix("/") ? 1 : 0)
            .contains(where: { $0 == "." || $0 == ".." }) else {
            throw Refusal(reason: "a '.' or '..' segment in the key")
        }
    }

    var text: String { "s3://\(bucket)/\(key)" }

    /// Under `prefix` (same bucket; the key starts with the prefix's key at a segment boundary).
    func isUnder(_ prefix: S3Source) -> Bool {
        guard bucket == prefix.bucket else { return false }
        if prefix.key.isEmpty || prefix.key.hasSuffix("/") { return key.hasPrefix(prefix.key) }
        return key == prefix.key || key.hasPrefix(prefix.key + "/")
    }
}
