import PluginKit

/// RFC 2397 `data:[<mediatype>][;base64],<data>`: the media type (default `text/plain;charset=US-ASCII`) and the
/// bytes, percent-decoded, then base64-decoded when `;base64` ends the parameters. Strict: a malformed escape, a
/// character outside base64's alphabet or bad padding is INVALID_DATA, never silently dropped.
enum DataURL {
    struct Parsed {
        let mediaType: String
        let bytes: [UInt8]
        init(_ value: (String, [UInt8])) { (mediaType, bytes) = value }
    }

    static func parse(_ url: UnsafeRawBufferPointer) throws -> (String, [UInt8]) {
        let prefix = Array("data:".utf8)
        guard url.count >= prefix.count, zip(url.prefix(prefix.count), prefix).allSatisfy({ lowered($0) == $1 }) else {
            throw PluginFailure.invalidData("not a data: URL")
        }
        guard let comma = url[prefix.count...].firstIndex(of: UInt8(ascii: ",")) else {
            throw PluginFailure.invalidData("a data: URL needs a ',' before its data")
        }
        var header = String(decoding: url[prefix.count..<comma], as: UTF8.self)
        let payload = try percentDecoded(url[(comma + 1)...])
        let isBase64 = header.lowercased().hasSuffix(";base64")
        if isBase64 { header.removeLast(";base64".count) }
        let mediaType = header.isEmpty || header.hasPrefix(";") ? "text/plain" + (header.isEmpty ? ";charset=US-ASCII" : header) : header
        return (mediaType, isBase64 ? try base64Decoded(payload) : payload)
    }

    private static func lowered(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }

    private static func percentDecoded(_ text: UnsafeRawBufferPointer.SubSequence) throws -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.count)
        var index = text.startIndex
        while index < text.endIndex {
            let byte = text[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < text.endIndex, let high = hexValue(text[index + 1]), let low = hexValue(text[index + 2]) else {
                    throw PluginFailure.invalidData("a '%' in the data: URL is not followed by two hex digits")
                }
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(byte)
                index += 1
            }
        }
        return output
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Base64 (RFC 4648 §4; the URL-safe alphabet's '-' and '_' too, which some producers use), padding optional,
    /// ASCII white space ignored (a wrapped URL).
    static func base64Decoded(_ text: [UInt8]) throws -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0, bits = 0, padding = 0
        for byte in text {
            let value: UInt32
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(byte - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"), UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): value = 63
            case UInt8(ascii: "="):
                padding += 1
                continue
            case 0x20, 0x09, 0x0A, 0x0D: continue
            default: throw PluginFailure.invalidData("the data: URL's base64 holds a character outside its alphabet")
            }
            guard padding == 0 else { throw PluginFailure.invalidData("the data: URL's base64 continues after its padding") }
            accumulator = accumulator << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        guard bits < 6, padding <= 2 else { throw PluginFailure.invalidData("the data: URL's base64 is cut short") }
        return output
    }
}
