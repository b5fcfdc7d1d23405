/// An http(s) URL in the one form the service compares and fetches (RFC 3986 section 6 normalisation), so that a
/// source cannot pass an `--allow-source` check as one URL and be fetched as another:
/// scheme and host lower-cased, the default port dropped, percent-escapes of unreserved characters decoded (so
/// `%2e%2e` is `..`) and the rest upper-cased, then `remove_dot_segments` (section 5.2.4), the fragment dropped.
/// Refused outright, since origins disagree on what they mean: user information (`http://allowed@evil/`), a
/// backslash, escaped `/`, `\`, `%` or NUL in the path (`%2f`, `%5c`, and `%252e`, which some origins decode twice
/// into `..`), a host with anything but letters, digits, `-`, `.`, `_` or a bracketed IPv6 address.
struct RemoteURL: Equatable {
    let scheme: String
    let host: String
    /// nil: the scheme's default.
    let port: Int?
    /// Starts with "/", dot segments removed.
    let path: String
    /// Without the "?"; nil when absent.
    let query: String?

    struct Refusal: Error { let reason: String }

    /// "scheme://host[:port]path[?query]": what is fetched.
    var text: String {
        "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")\(path)\(query.map { "?" + $0 } ?? "")"
    }

    init(parsing url: String) throws {
        guard let separator = url.firstRange(of: "://") else { throw Refusal(reason: "not an absolute URL") }
        scheme = url[..<separator.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { throw Refusal(reason: "only http and https sources") }
        var rest = Substring(url[separator.upperBound...])
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        rest = rest[authorityEnd...]
        guard !authority.contains("@") else { throw Refusal(reason: "user information in a source URL") }
        guard !url.contains("\\") else { throw Refusal(reason: "a backslash in a source URL") }

        var hostPart = authority, portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw Refusal(reason: "an unclosed IPv6 address") }
            hostPart = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw Refusal(reason: "a malformed host") }
                portText = after.dropFirst()
            }
            guard hostPart.dropFirst().dropLast().allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw Refusal(reason: "a malformed IPv6 address")
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        var name = hostPart.lowercased()
        if name.hasSuffix("."), !name.hasPrefix("[") { name.removeLast() }  // "host." is the same DNS name as "host"
        guard !name.isEmpty, name.hasPrefix("[") || name.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || "-._".contains($0) })
        else { throw Refusal(reason: "a malformed host") }
        host = name
        if let portText, !portText.isEmpty {
            guard portText.allSatisfy(\.isASCII), portText.allSatisfy(\.isNumber), let number = Int(portText), (1...65535).contains(number) else {
                throw Refusal(reason: "a malformed port")
            }
            port = number == (scheme == "http" ? 80 : 443) ? nil : number
        } else {
            port = nil
        }

        var pathText = rest, queryText: Substring?
        if let mark = rest.firstIndex(of: "?") {
            pathText = rest[..<mark]
            queryText = rest[rest.index(after: mark)...]
        }
        path = Self.removeDotSegments(try Self.normalizedEscapes(pathText.isEmpty ? "/" : pathText))
        query = queryText.map(String.init)
    }

    /// Unreserved characters' escapes decoded, the others upper-cased; escaped `/`, `\`, `%` and NUL refused.
    static func normalizedEscapes(_ path: Substring) throws -> String {
        var out: [UInt8] = []
        let bytes = Array(path.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "%") else { out.append(byte); index += 1; continue }
            guard index + 2 < bytes.count, let high = ProcessingURL.hexValue(bytes[index + 1]), let low = ProcessingURL.hexValue(bytes[index + 2]) else {
                throw Refusal(reason: "a malformed percent escape")
            }
            let value = high << 4 | low
            switch value {
            case 0x2F, 0x5C, 0x25, 0x00: throw Refusal(reason: "an escaped '/', '\\\\', '%' or NUL in the path")
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(value)
            default:
                out += Array(String(format2: value).utf8)
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 3986 section 5.2.4, on an absolute path.
    static func removeDotSegments(_ path: String) -> String {
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (position, segment) in segments.enumerated() {
            let last = position == segments.count - 1
            switch segment {
            case ".":
                if last { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if last { output.append("") }
            default:
                output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/")
    }

    /// Whether `self` is under `prefix`: same scheme, host and port, and a path that is the prefix's or continues
    /// it at a segment boundary (`/pub` covers `/pub` and `/pub/x`, never `/public`).
    func isUnder(_ prefix: RemoteURL) -> Bool {
        guard scheme == prefix.scheme, host == prefix.host, port == prefix.port else { return false }
        if prefix.path.hasSuffix("/") { return path.hasPrefix(prefix.path) }
        return path == prefix.path || path.hasPrefix(prefix.path + "/")
    }

}

private extension String {
    /// "%XY" with upper-case hex digits.
    init(format2 value: UInt8) {
        let digits = Array("0123456789ABCDEF")
        self = "%" + String(digits[Int(value >> 4)]) + String(digits[Int(value & 15)])
    }
}
