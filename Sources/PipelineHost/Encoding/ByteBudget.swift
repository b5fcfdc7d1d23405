/// Encoding within a byte budget (imgproxy's `max_bytes`): the highest quality whose output fits.
///
/// A bisection over the quality, not imgproxy's shrinking steps (each try multiplies the quality by 0.25 to 0.75
/// after the size it saw), which stops at the first output that fits and can land far below the best one: here the
/// result is the highest quality that fits, to one step, in a known number of encodes. First the options as given
/// (most outputs fit and cost one encode); when that is too large, a bisection of 1 ... quality − 1 (99 when the
/// quality is the coder's default), so at most 1 + ⌈log₂ 99⌉ = 8 encodes. When not even quality 1 fits, its output
/// (the smallest there is) is the answer and `fits` says so. When the size does not move with the quality (PNG,
/// GIF, a lossless encode), the first try's output is kept after one more encode.
public enum ByteBudget {
    public struct Outcome: Sendable {
        public let bytes: [UInt8]
        /// The quality that gave `bytes` (nil: the options' own, which fit or which the format ignores).
        public let quality: Int?
        public let encodes: Int
        public let fits: Bool
    }

    /// Encodes with `encode`, searching the quality when `options.maxBytes` asks for it; `encode` is handed the
    /// options without the budget.
    public static func encode(_ options: EncodeOptions, _ encode: (EncodeOptions) throws -> [UInt8]) throws -> Outcome {
        var plain = options
        plain.maxBytes = nil
        let first = try encode(plain)
        guard let budget = options.maxBytes, first.count > budget, !options.lossless else {
            return Outcome(bytes: first, quality: options.quality, encodes: 1, fits: options.maxBytes.map { first.count <= $0 } ?? true)
        }
        var low = 1, high = min(99, (options.quality ?? 100) - 1)
        var best: (bytes: [UInt8], quality: Int)?, smallest: (bytes: [UInt8], quality: Int)?
        var encodes = 1
        while low <= high {
            let quality = (low + high) / 2
            var attempt = plain
            attempt.quality = quality
            let bytes = try encode(attempt)
            encodes += 1
            if encodes == 2, bytes.count == first.count {
                // The format ignores the quality: no other try can do better.
                return Outcome(bytes: first, quality: options.quality, encodes: encodes, fits: false)
            }
            if smallest == nil || bytes.count < smallest!.bytes.count { smallest = (bytes, quality) }
            if bytes.count <= budget {
                best = (bytes, quality)
                low = quality + 1
            } else {
                high = quality - 1
            }
        }
        if let best { return Outcome(bytes: best.bytes, quality: best.quality, encodes: encodes, fits: true) }
        let fallback = smallest ?? (first, options.quality ?? 100)
        return Outcome(bytes: fallback.bytes, quality: fallback.quality, encodes: encodes, fits: false)
    }
}
