/// HMAC-SHA256 (RFC 2104) over the project's SHA-256: what signed service URLs are checked with.
public enum HMACSHA256 {
    public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let blockSize = 64
        var block = key.count > blockSize ? SHA256.digest(key) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        let inner = SHA256.digest(block.map { $0 ^ 0x36 } + message)
        return SHA256.digest(block.map { $0 ^ 0x5c } + inner)
    }

    /// Compares in time independent of where the first difference is (a signature check must not leak it).
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
