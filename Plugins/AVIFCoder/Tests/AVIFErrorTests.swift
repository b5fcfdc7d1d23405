import Foundation
import PipelineHost
import TestSupport
import Testing

/// Broken and hostile input: clear statuses, never a crash; limits refused before allocating.
@Suite struct AVIFErrorTests {
    /// A small lossless AVIF made by this plugin's encoder (no corpus needed).
    static func sample(width: Int = 48, height: Int = 32, alpha: Bool = true) throws -> [UInt8] {
        let raster = Raster.pattern(width: width, height: height, alpha: alpha)
        let image = try Image(width: width, height: height, pixelFormat: .rgba8, alphaMode: alpha ? .straight : .none,
                              bytes: raster.samples.map { UInt8($0) })
        return try AVIFTest.coders().encode(image, format: "avif", options: EncodeOptions(speed: 10, lossless: true))
    }

    /// Every prefix: an error (TRUNCATED once the ftyp is complete but the boxes are not), never a crash or an image.
    @Test func everyTruncationFails() throws {
        let bytes = try Self.sample()
        var statuses: [PluginStatus: Int] = [:]
        for length in stride(from: 0, to: bytes.count, by: 1) {
            let prefix = Array(bytes.prefix(length))
            guard try AVIFTest.coders().coder(forData: prefix) != nil else { continue }
            let status = AVIFTest.decodeStatus(prefix)
            #expect(status != nil, "a \(length)-byte prefix of \(bytes.count) decoded")
            statuses[status ?? .internalError, default: 0] += 1
            // Once the ftyp box is whole, cutting the file is reported as truncation.
            if length >= 32, status != .truncated {
                Issue.record("prefix \(length): \(String(describing: status)): \(Self.message(prefix))")
            }
        }
        #expect(AVIFTest.decodeStatus(bytes) == nil)
        print("errors: prefixes of a \(bytes.count)-byte file: \(statuses)")
    }

    static func message(_ bytes: [UInt8]) -> String {
        do { _ = try AVIFTest.decode(bytes); return "decoded" } catch { return "\(error)" }
    }

    /// Random byte damage: any outcome but a crash (an image when the damage hits only pixels).
    @Test func corruptionNeverCrashes() throws {
        let bytes = try Self.sample()
        var generator = SplitMix64(seed: 42)
        var outcomes: [String: Int] = [:]
        for _ in 0..<300 {
            var damaged = bytes
            for _ in 0..<Int(generator.next() % 4 + 1) {
                damaged[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            outcomes[AVIFTest.decodeStatus(damaged).map { "\($0)" } ?? "image", default: 0] += 1
            _ = try? AVIFTest.probe(damaged)
        }
        print("errors: 300 damaged files: \(outcomes)")
    }

    @Test(.requiresCorpus) func limits() throws {
        let bytes = try Self.sample(width: 48, height: 32)
        #expect(AVIFTest.decodeStatus(bytes, DecodeOptions(limits: DecodeLimits(maxPixels: 48 * 32))) == nil)
        #expect(AVIFTest.decodeStatus(bytes, DecodeOptions(limits: DecodeLimits(maxPixels: 48 * 32 - 1))) == .limitExceeded)
        #expect(AVIFTest.decodeStatus(bytes, DecodeOptions(limits: DecodeLimits(maxDimension: 47))) == .limitExceeded)
        #expect(AVIFTest.decodeStatus(bytes, DecodeOptions(limits: DecodeLimits(maxInputBytes: 10))) == .limitExceeded)
        #expect(throws: PipelineError.self) { try AVIFTest.probe(bytes, DecodeOptions(limits: DecodeLimits(maxDimension: 40))) }
        // A header claiming 65535x65535 is refused from the header: nothing near 17 GB is allocated.
        if let bomb = try AVIFTest.corpusFile("bad/made-white_1x1-ispe-65535x65535.avif") {
            #expect(AVIFTest.decodeStatus(bomb) == .limitExceeded)
        }
    }

    @Test(.requiresCorpus) func messagesSayWhatLibavifSaid() throws {
        guard let bytes = try AVIFTest.corpusFile("bad/made-fox-truncated-half.avif") else { return }
        do {
            _ = try AVIFTest.decode(bytes)
            Issue.record("decoded")
        } catch let error as PipelineError {
            #expect("\(error)".contains("libavif failed to parse the file"), "\(error)")
            #expect("\(error)".contains("truncated"), "\(error)")
        }
    }
}
