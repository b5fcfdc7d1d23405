import Foundation
import PipelineHost
import Testing
import TestSupport

/// HMAC-SHA256 as signed service URLs use it: RFC 4231's test vectors, and OpenSSL on random keys and messages.
struct HMACTests {
    private static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test("RFC 4231 test cases 1, 2 and 6 (a key longer than the block is hashed first)")
    func rfc4231() {
        #expect(Self.hex(HMACSHA256.authenticationCode(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(Self.hex(HMACSHA256.authenticationCode(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(Self.hex(HMACSHA256.authenticationCode(key: [UInt8](repeating: 0xaa, count: 131),
                                                       message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test("equals `openssl dgst -sha256 -mac HMAC` on random keys and messages of every length class")
    func matchesOpenSSL() throws {
        try Skip.unlessTool("openssl")
        var generator = SplitMix64(seed: 17)
        let folder = try TestPaths.temporaryDirectory("hmac")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (keyLength, messageLength) in [(1, 0), (16, 55), (32, 56), (64, 64), (65, 200), (100, 1000)] {
            let key = (0..<keyLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let message = (0..<messageLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try Data(message).write(to: URL(fileURLWithPath: folder + "/m"))
            let run = try CommandLine.run("/usr/bin/openssl", ["dgst", "-sha256", "-mac", "HMAC", "-macopt", "hexkey:" + Self.hex(key), folder + "/m"])
            let theirs = run.stdout.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            #expect(theirs == Self.hex(HMACSHA256.authenticationCode(key: key, message: message)), "key \(keyLength), message \(messageLength)")
        }
        #expect(HMACSHA256.constantTimeEqual([1, 2, 3], [1, 2, 3]) && !HMACSHA256.constantTimeEqual([1, 2, 3], [1, 2, 4])
                && !HMACSHA256.constantTimeEqual([1, 2], [1, 2, 3]))
    }
}
