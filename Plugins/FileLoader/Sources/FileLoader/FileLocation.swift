import PluginKit

/// The file a load request points at: a plain absolute path, or a `file:` URL turned into one.
///
/// Paths are bytes, not `String`s: a percent-decoded URL may name a file whose name is not valid UTF-8, and
/// it must still open. Messages show a lossy UTF-8 rendering.
struct FileLocation: Sendable, Equatable {
    /// The path to open, without a trailing NUL; never contains NUL.
    let path: [UInt8]

    var displayPath: String { String(decoding: path, as: UTF8.self) }

    init(path: [UInt8]) { self.path = path }

    /// Accepts `/abs/path` (taken literally: no percent-decoding, `?` and `#` are part of the name),
    /// `file:///abs/path`, `file://localhost/abs/path` and `file:/abs/path` (percent-decoded; a query or
    /// fragment is dropped). Anything else throws with a message that says what to pass instead.
    init(parsing url: String) throws {
        let bytes = Array(url.utf8)
        if bytes.first == UInt8(ascii: "/") {
            self.init(path: bytes)
            return
        }
        guard let scheme = Self.scheme(of: bytes) else {
            throw PluginFailure.unsupported("not an absolute path or a file:// URL: '\(url)' (relative paths are not resolved)")
        }
        guard scheme == "file" else {
            throw PluginFailure.unsupported("the file loader reads file:// URLs and absolute paths, not \(scheme): URLs")
        }
        var rest = bytes[(scheme.utf8.count + 1)...]
        if let end = rest.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            rest = rest[..<end]
        }
        if rest.starts(with: "//".utf8) {
            rest = rest.dropFirst(2)
            let slash = rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
            let host = String(decoding: rest[..<slash], as: UTF8.self)
            if !host.isEmpty && host.lowercased() != "localhost" {
                throw PluginFailure.unsupported(
                    "file URL names another host ('\(host)'); only local files can be read: use file:///path")
            }
            rest = rest[slash...]
        }
        guard rest.first == UInt8(ascii: "/") else {
            throw PluginFailure.unsupported("file URL has no absolute path: '\(url)'")
        }
        let decoded = try Self.percentDecoded(rest, url: url)
        guard !decoded.contains(0) else {
            throw PluginFailure.invalidData("file URL encodes a NUL byte (%00): '\(url)'")
        }
        self.init(path: decoded)
    }

    /// The lower-cased scheme (RFC 3986: a letter, then letters, digits, "+", "-" or "."), or nil.
    private static func scheme(of bytes: [UInt8]) -> String? {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return nil }
        let name = bytes[..<colon]
        func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z") }
        func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
        guard isLetter(name.first!),
              name.allSatisfy({ isLetter($0) || isDigit($0) || "+-.".utf8.contains($0) }) else { return nil }
        return String(decoding: name, as: UTF8.self).lowercased()
    }

    private static func percentDecoded(_ bytes: ArraySlice<UInt8>, url: String) throws -> [UInt8] {
        func hexValue(_ b: UInt8) -> UInt8? {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte != UInt8(ascii: "%") {
                out.append(byte)
                index += 1
                continue
            }
            guard bytes.endIndex - index >= 3,
                  let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else {
                throw PluginFailure.invalidData("malformed percent escape in file URL: '\(url)'")
            }
            out.append(high << 4 | low)
            index += 3
        }
        return out
    }
}
