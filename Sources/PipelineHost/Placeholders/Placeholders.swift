/// What a page can show before an image arrives, and what finds its near-duplicates: computed together from one
/// small decode (`PlaceholderSample`), for `imagepipe info --placeholders`, `thumbnail --json --placeholders`, the
/// service's `/info` and the library.
///
/// The JSON keys are part of the interface (README, "Placeholders"): `averageColor` "#rrggbb", `averageAlpha`
/// 0...1, `dominantColors` [{`color`, `share`}], `blurHash`, `thumbHash` (base64), `dHash` (16 hex digits),
/// `sampleWidth`/`sampleHeight` (the decode they came from) and `milliseconds` (decode and computation).
public struct Placeholders: Sendable, Codable, Equatable {
    public var averageColor: String
    public var averageAlpha: Double
    public var dominantColors: [ColorSummary.Dominant]
    public var blurHash: String
    public var thumbHash: String
    public var dHash: String
    public var sampleWidth: Int
    public var sampleHeight: Int
    public var milliseconds: Double

    /// What may vary between requests: BlurHash's components (imgproxy's `bh:X:Y`, default 4 × 3) and how many
    /// dominant colours.
    public struct Settings: Sendable, Hashable {
        public var blurHashComponentsX = 4
        public var blurHashComponentsY = 3
        public var dominantColorCount = 5
        public init(blurHashComponentsX: Int = 4, blurHashComponentsY: Int = 3, dominantColorCount: Int = 5) {
            self.blurHashComponentsX = blurHashComponentsX
            self.blurHashComponentsY = blurHashComponentsY
            self.dominantColorCount = dominantColorCount
        }
    }

    /// Every placeholder of one sample; `milliseconds` counts from `started` (ChildProcess.now()), so a caller
    /// that decoded the sample includes its decode.
    public init(_ sample: PlaceholderSample, settings: Settings = Settings(), started: Double? = nil) throws {
        let begin = started ?? ChildProcess.now()
        let average = ColorSummary.average(of: sample)
        averageColor = ColorSummary.hex(average)
        averageAlpha = (Double(average.alpha) / 255 * 1000).rounded() / 1000
        dominantColors = ColorSummary.dominant(in: sample, count: settings.dominantColorCount).map {
            ColorSummary.Dominant(color: $0.color, share: ($0.share * 1000).rounded() / 1000)
        }
        blurHash = try BlurHash.encode(sample, componentsX: settings.blurHashComponentsX, componentsY: settings.blurHashComponentsY)
        thumbHash = try ThumbHash.encode(sample)
        dHash = DifferenceHash.hex(DifferenceHash.hash(of: sample))
        sampleWidth = sample.width
        sampleHeight = sample.height
        milliseconds = ((ChildProcess.now() - begin) * 100_000).rounded() / 100
    }
}

extension ImageManager {
    /// The placeholders of a source, from a decode that fits 100 × 100 (never enlarged; the page, frame and other
    /// decode options as given): a coder's shrink-on-load makes it a fraction of a full decode, and the sample
    /// goes through the same orientation and colour steps as every image.
    public func placeholders(for url: String, options: DecodeOptions = DecodeOptions(), loadOptions: LoadOptions = LoadOptions(),
                             settings: Placeholders.Settings = Placeholders.Settings()) async throws -> Placeholders {
        let started = ChildProcess.now()
        var decode = options
        decode.thumbnailSize = PixelSize(width: PlaceholderSample.maxSide, height: PlaceholderSample.maxSide)
        decode.scaleMode = .fit
        decode.allowUpscale = false
        decode.tint = nil
        decode.template = false
        let image = try await image(for: ImageRequest(url: url, options: decode, loadOptions: loadOptions))
        return try Placeholders(try PlaceholderSample(image), settings: settings, started: started)
    }
}
