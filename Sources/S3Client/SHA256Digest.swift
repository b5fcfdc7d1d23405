import CCrypto

/// SHA-256 by OpenSSL's libcrypto (libcurl links it already): SigV4's payload hash, which S3 compares with the
/// body it receives (so a body damaged on the way is refused, not stored), and the result tier's object names.
public enum SHA256Digest {
    public static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        digest.withUnsafeMutableBufferPointer { out in
            _ = SHA256(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, out.baseAddress)
        }
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    public static func hex(_ bytes: [UInt8]) -> String { bytes.withUnsafeBytes { hex($0) } }
    public static func hex(_ text: String) -> String { hex(Array(text.utf8)) }
}
