/// RFC 4648 base64 without Foundation: the standard alphabet with padding (ThumbHash strings, S3's Content-MD5),
/// or the URL-safe one without (imgproxy's URL signatures). One encoder for the three places that need one.
public enum Base64 {
    public static func encode(_ bytes: [UInt8], urlSafe: Bool = false, padded: Bool = true) -> String {
        let alphabet = urlSafe ? Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
                               : Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var word: UInt32 = 0
            for i in 0..<count { word |= UInt32(bytes[index + i]) << UInt32(16 - 8 * i) }
            for i in 0..<4 {
                if i <= count {
                    out.append(alphabet[Int((word >> UInt32(18 - 6 * i)) & 63)])
                } else if padded {
                    out.append(UInt8(ascii: "="))
                }
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
