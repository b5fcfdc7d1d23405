import PipelineHost

/// The placeholder options `info` and `thumbnail` share: `--placeholders`, `--blurhash XxY`, `--dominant-colors N`.
enum PlaceholderArguments {
    static let options: [OptionSection.Row] = [
        .option(Option("placeholders", help: """
                also compute placeholders from a ≤ 100 px decode: average and dominant colours, BlurHash,
                ThumbHash and a 64-bit difference hash (dHash)
                """)),
        .option(Option("blurhash", value: "XxY", default: "4x3", help: "BlurHash components across and down, 1...9 each (default {default})")),
        .option(Option("dominant-colors", value: "N", default: "5", help: "how many dominant colours, 1...16 (default {default})")),
    ]

    /// The settings, or nil without --placeholders.
    static func settings(_ args: Arguments) throws -> Placeholders.Settings? {
        guard args.flag("placeholders") else { return nil }
        let text = args.value("blurhash")!
        let parts = text.split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts.allSatisfy({ (1...9).contains($0) }) else {
            throw UsageError("--blurhash takes XxY with 1...9 each (e.g. 4x3), not '\(text)'")
        }
        return Placeholders.Settings(blurHashComponentsX: parts[0], blurHashComponentsY: parts[1],
                                     dominantColorCount: try args.int("dominant-colors", range: 1...16)!)
    }

    /// The text rows `info` prints for them.
    static func rows(_ p: Placeholders) -> [(String, String)] {
        [
            ("average colour", p.averageColor + (p.averageAlpha < 1 ? " (alpha \(p.averageAlpha))" : "")),
            ("dominant", p.dominantColors.map { "\($0.color) \(Int(($0.share * 100).rounded()))%" }.joined(separator: ", ")),
            ("blurhash", p.blurHash),
            ("thumbhash", p.thumbHash),
            ("dhash", p.dHash),
            ("placeholders", "from a \(p.sampleWidth)x\(p.sampleHeight) decode in \(p.milliseconds) ms"),
        ]
    }
}

/// `info --json` with placeholders: the info's own keys, plus `placeholders` (one object, so the info keys stay
/// as they were for readers that do not ask).
struct InfoReport: Encodable {
    let info: ImageInfo
    let placeholders: Placeholders?

    private enum Keys: String, CodingKey { case placeholders }

    func encode(to encoder: any Encoder) throws {
        try info.encode(to: encoder)
        guard let placeholders else { return }
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(placeholders, forKey: .placeholders)
    }
}
