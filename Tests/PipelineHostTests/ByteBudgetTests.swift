import Foundation
import PipelineHost
import Testing
import TestSupport

/// Byte budgets: the output fits, its quality is the highest that fits (one more step does not), the number of
/// encodes stays within the stated bound, and formats whose size ignores the quality are encoded as asked.
@Suite struct ByteBudgetTests {
    /// One format's encoder without a budget (the manager's `encode` applies `maxBytes` itself).
    private struct Encoder {
        let coders: CodersManager, format: String
        func encode(_ frames: [Image], options: EncodeOptions) throws -> [UInt8] {
            var plain = options
            plain.maxBytes = nil
            return try coders.encode(frames[0], format: format, options: plain)
        }
    }

    /// A 320x240 photo-like image: smooth gradients with detail, so the size follows the quality closely.
    private static func photo() throws -> Image {
        var pixels: [UInt8] = []
        var random = SplitMix64(seed: 7)
        for y in 0..<240 {
            for x in 0..<320 {
                let n = UInt8(random.next() % 24)
                pixels += [UInt8((x * 255 / 319) & 0xff) &+ n, UInt8((y * 255 / 239) & 0xff), UInt8(((x ^ y) & 0x7f) + 64) &+ n, 255]
            }
        }
        return try Image(width: 320, height: 240, alphaMode: .none, bytes: pixels)
    }

    @Test("JPEG and WebP: the highest quality that fits, in at most 8 encodes", arguments: ["jpg", "webp"])
    func highestQualityThatFits(format: String) throws {
        let coders = try PluginSandbox.host(loading: ["libJPEGCoder.so", "libWebPCoder.so", "libPNGCoder.so"]).coders
        let image = try Self.photo()
        let coder = Encoder(coders: coders, format: format)
        let full = try coder.encode([image], options: EncodeOptions(quality: 90)).count
        let floor = try coder.encode([image], options: EncodeOptions(quality: 1)).count
        for fraction in [0.3, 0.5, 0.8] {
            let budget = floor + Int(Double(full - floor) * fraction)
            let outcome = try ByteBudget.encode(EncodeOptions(quality: 90, maxBytes: budget)) { try coder.encode([image], options: $0) }
            let quality = try #require(outcome.quality)
            #expect(outcome.fits && outcome.bytes.count <= budget && outcome.encodes <= 8, "\(format) \(budget): \(outcome.bytes.count) B in \(outcome.encodes)")
            #expect(try coder.encode([image], options: EncodeOptions(quality: quality)) == outcome.bytes, "the reported quality made these bytes")
            if quality < 89 {
                #expect(try coder.encode([image], options: EncodeOptions(quality: quality + 1)).count > budget, "\(format): q\(quality + 1) fits \(budget) too")
            }
            #expect(try coders.encode(image, format: format, options: EncodeOptions(quality: 90, maxBytes: budget)) == outcome.bytes, "CodersManager uses the budget")
        }
        let tooSmall = try ByteBudget.encode(EncodeOptions(maxBytes: floor / 2)) { try coder.encode([image], options: $0) }
        #expect(!tooSmall.fits && tooSmall.bytes.count == floor && tooSmall.encodes <= 8, "nothing fits: the smallest output, quality 1")
        let roomy = try ByteBudget.encode(EncodeOptions(quality: 90, maxBytes: full)) { try coder.encode([image], options: $0) }
        #expect(roomy.encodes == 1 && roomy.quality == 90 && roomy.fits)
    }

    @Test("a format whose size ignores the quality (PNG) is encoded as asked, after one more try")
    func qualityBlindFormat() throws {
        let coders = try PluginSandbox.host(loading: ["libPNGCoder.so"]).coders
        let image = try Self.photo()
        let coder = Encoder(coders: coders, format: "png")
        let plain = try coder.encode([image], options: EncodeOptions())
        let outcome = try ByteBudget.encode(EncodeOptions(maxBytes: plain.count / 2)) { try coder.encode([image], options: $0) }
        #expect(outcome.bytes == plain && outcome.encodes == 2 && !outcome.fits)
    }
}
