import FoundationEssentials
import PipelineHost

/// Named option lists for processing URLs (imgproxy's presets): `serve --preset NAME=OPTIONS` or `--presets FILE`,
/// used as `pr:NAME` (`preset:NAME`; several names after one `pr:`, or several `pr:` segments, chain in order).
///
/// A preset named `default` goes before every request's own options, so a URL's options override it (a later
/// option wins, as in imgproxy). With `--only-presets` a URL may hold preset names only (bare, as imgproxy's
/// only-presets mode writes them, or as `pr:`): any other option is a 400, so the service renders only what the
/// operator listed. Presets are checked at start (each must parse as options), and may not name presets.
struct Presets: Sendable {
    private(set) var named: [String: [String]] = [:]
    var onlyPresets = false
    var isEmpty: Bool { named.isEmpty }

    init() {}

    /// `lines`: `NAME=OPTIONS` each (`OPTIONS` as in a URL, `/`-separated), `#` comments and blank lines ignored.
    /// `watermark`: the service's (so a preset may hold wm:).
    init(definitions: [String], file: String? = nil, watermark: WatermarkImage? = nil) throws {
        for definition in definitions { try add(definition, origin: "--preset", watermark: watermark) }
        if let file {
            guard let data = FileManager.default.contents(atPath: file), data.count <= 1 << 20 else {
                throw UsageError("--presets \(file): not a readable file of at most 1 MiB")
            }
            let text = String(decoding: data, as: UTF8.self)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = String(line.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
                guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
                try add(trimmed, origin: "\(file):\(number + 1)", watermark: watermark)
            }
        }
    }

    private mutating func add(_ definition: String, origin: String, watermark: WatermarkImage?) throws {
        guard let equals = definition.firstIndex(of: "=") else {
            throw UsageError("\(origin): a preset is NAME=OPTIONS (e.g. thumb=rs:fill:256:256/q:80), not '\(definition)'")
        }
        let name = String(definition[..<equals]), options = String(definition[definition.index(after: equals)...])
        guard Self.isName(name) else { throw UsageError("\(origin): preset names are letters, digits, '-' and '_', not '\(name)'") }
        let segments = options.split(separator: "/").map(String.init)
        guard !segments.isEmpty else { throw UsageError("\(origin): preset '\(name)' has no options") }
        for segment in segments where ["pr", "preset"].contains(segment.split(separator: ":").first.map(String.init) ?? "") {
            throw UsageError("\(origin): preset '\(name)' names a preset ('\(segment)'); presets cannot chain inside presets")
        }
        // Parsed once now, so a typo stops the service at start instead of failing every request that uses it.
        do {
            _ = try ProcessingURL(path: "/-/" + segments.joined(separator: "/") + "/plain/check", maxSide: 65535, watermark: watermark)
        } catch let failure as ProcessingURL.Failure {
            throw UsageError("\(origin): preset '\(name)': \(failure.message)")
        }
        named[name] = segments
    }

    static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 45 || $0 == 95 }
    }

    /// The option segments with presets expanded in place, after `default`'s.
    func expand(_ segments: [String]) throws -> [String] {
        var out = named["default"] ?? []
        for segment in segments {
            let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            var names: [String]
            if parts[0] == "pr" || parts[0] == "preset" {
                names = Array(parts.dropFirst())
            } else if onlyPresets {
                guard parts.count == 1 else {
                    throw ProcessingURL.Failure(status: 400, message: "only presets are allowed here, not '\(segment)'")
                }
                names = parts
            } else {
                out.append(segment)
                continue
            }
            guard !names.isEmpty else { throw ProcessingURL.Failure(status: 400, message: "'\(segment)' names no preset") }
            for name in names {
                guard let options = named[name] else { throw ProcessingURL.Failure(status: 400, message: "unknown preset '\(name)'") }
                out += options
            }
        }
        return out
    }
}
