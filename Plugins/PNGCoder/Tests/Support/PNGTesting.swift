import PipelineHost
import Testing
import TestSupport

/// Shared setup and checks of the PNG plugin tests.
enum PNGTesting {
    static let coderID = "org.imagepipe.coder.png/1"

    /// The coders of a host that loaded only libPNGCoder.so (from plugins.d, copied into a fresh folder).
    static func coders() throws -> CodersManager {
        try PluginSandbox.host(loading: ["libPNGCoder.so"]).coders
    }

    /// The first pixel where `image` differs from `pattern` at the image's own depth, or nil when all match.
    static func firstMismatch(_ image: Image, _ pattern: Pattern) -> String? {
        guard image.width == pattern.width, image.height == pattern.height else {
            return "size \(image.width)x\(image.height), expected \(pattern.width)x\(pattern.height)"
        }
        let target = Int(image.pixelFormat.maxValue)
        var mismatches = 0
        var first: String?
        for y in 0..<image.height {
            for x in 0..<image.width {
                let actual = image.pixel(x: x, y: y)
                let wanted = pattern.expected(x: x, y: y, to: target)
                if actual != wanted {
                    mismatches += 1
                    if first == nil { first = "pixel (\(x), \(y)) is \(actual), expected \(wanted)" }
                }
            }
        }
        return first.map { "\(mismatches) pixels differ; first: \($0)" }
    }

    /// Decodes `png` and requires every pixel to equal `pattern` (at 8 bits, or 16 with `highBitDepth`).
    static func expectDecodes(
        _ png: [UInt8], to pattern: Pattern, highBitDepth: Bool = false, format: PixelFormat = .rgba8,
        alphaMode: AlphaMode, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let image = try coders().decode(data: png, options: DecodeOptions(highBitDepth: highBitDepth))
        #expect(image.pixelFormat == format, sourceLocation: sourceLocation)
        #expect(image.alphaMode == alphaMode, sourceLocation: sourceLocation)
        let mismatch = firstMismatch(image, pattern)
        #expect(mismatch == nil, "\(mismatch ?? "")", sourceLocation: sourceLocation)
    }
}
