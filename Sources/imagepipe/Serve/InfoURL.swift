import PipelineHost

/// An imgproxy-style info request, parsed: `/<signature>/<option>/.../plain/<percent-encoded source>` or
/// `/<signature>/<option>/.../<base64url source>` after the `/info` prefix (imgproxy Pro's `/info` endpoint, so its
/// URL builders' info URLs work). Options:
///
///   pg:N  page      avg:1  average colour      dc:1  dominant colours      bh:X:Y  BlurHash with X × Y components
///   th:1  ThumbHash   dh:1  difference hash   pl:1  all placeholders   (long names: page, average, dominant_colors,
///   blurhash, thumbhash, dhash, placeholders; 1, t or true turn one on, 0, f or false off)
///
/// Any placeholder option makes the answer carry the whole `placeholders` object: they come from one ≤ 100 px
/// decode and cost less together than that decode (README, "Placeholders").
struct InfoURL {
    var source: String
    var options = DecodeOptions()
    /// nil: the facts only, read without decoding pixels.
    var placeholders: Placeholders.Settings?
    /// The options as given, in order: part of the answer's cache key.
    var canonicalOptions: [String] = []

    init(path: String) throws {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        guard segments.count >= 2 else { throw ProcessingURL.Failure(status: 400, message: "expected /info/<signature>/<options>/<source>") }
        var rest = Array(segments.dropFirst())
        var settings = Placeholders.Settings(), wanted = false
        var sourceText: String?, plain = false
        while !rest.isEmpty {
            let segment = rest.removeFirst()
            if segment == "plain" { plain = true; sourceText = rest.joined(separator: "/"); break }
            if rest.isEmpty { sourceText = segment; break }
            canonicalOptions.append(segment)
            let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            let name = parts[0], args = Array(parts.dropFirst())
            func on() throws -> Bool {
                switch args.first?.lowercased() {
                case nil, "1", "t", "true": return true
                case "0", "f", "false": return false
                default: throw ProcessingURL.Failure(status: 400, message: "option '\(segment)': expected 1 or 0")
                }
            }
            func int(_ index: Int, _ range: ClosedRange<Int>) throws -> Int {
                guard index < args.count, let value = Int(args[index]), range.contains(value) else {
                    throw ProcessingURL.Failure(status: 400, message: "option '\(segment)': argument \(index + 1) must be a whole number in \(range.lowerBound)...\(range.upperBound)")
                }
                return value
            }
            switch name {
            case "pg", "page": options.pageIndex = try int(0, 0...100_000)
            case "avg", "average", "dc", "dominant_colors", "th", "thumbhash", "dh", "dhash", "pl", "placeholders":
                wanted = try on() || wanted
            case "bh", "blurhash":
                settings.blurHashComponentsX = try int(0, 1...9)
                settings.blurHashComponentsY = try int(1, 1...9)
                wanted = true
            default: throw ProcessingURL.Failure(status: 400, message: "unknown info option '\(name)' in '\(segment)'")
            }
        }
        guard let encoded = sourceText, !encoded.isEmpty else { throw ProcessingURL.Failure(status: 400, message: "the source is missing") }
        if plain {
            // An output format after @ means nothing here, but imgproxy's builders may add one.
            let text = encoded.lastIndex(of: "@").map { String(encoded[..<$0]) } ?? encoded
            guard let decoded = ProcessingURL.percentDecoded(text) else {
                throw ProcessingURL.Failure(status: 400, message: "the plain source has a bad percent escape")
            }
            source = decoded
        } else {
            let text = encoded.lastIndex(of: ".").map { String(encoded[..<$0]) } ?? encoded
            guard let bytes = ProcessingURL.base64URLDecoded(text), let decoded = String(validating: bytes, as: UTF8.self) else {
                throw ProcessingURL.Failure(status: 400, message: "the source is not base64url (or use /plain/<percent-encoded URL>)")
            }
            source = decoded
        }
        placeholders = wanted ? settings : nil
    }
}
