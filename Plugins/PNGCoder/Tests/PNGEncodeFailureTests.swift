import PipelineHost
import PluginAPI
import Testing
import TestSupport

/// The encoder's failure paths, through the coder's encode slot (see `EncodeHarness`): a sink that refuses bytes
/// and a caller that cancels, on both writers (the fast one, and libpng for interlaced output).
@Suite("PNG encode failures")
struct PNGEncodeFailureTests {
    static let width = 40, height = 100

    /// 8-bit RGBA pixels of a busy pattern.
    static let rgba: [UInt8] = {
        (0..<(width * height * 4)).map { UInt8(truncatingIfNeeded: ($0 * 7919) ^ ($0 >> 5)) }
    }()

    static func encode(interlaced: Bool = false, _ behaviour: EncodeHarness.Behaviour) throws -> EncodeHarness.Outcome {
        var options = ip_encode_options()
        options.flags = interlaced ? UInt32(IP_ENCODE_PROGRESSIVE) : 0
        return try EncodeHarness.encode(width: width, height: height, rgba: rgba, options: options, behaviour)
    }

    @Test("the harness's own run succeeds and writes the whole file", arguments: [false, true])
    func baseline(interlaced: Bool) throws {
        let outcome = try Self.encode(interlaced: interlaced, EncodeHarness.Behaviour())
        #expect(outcome.status == .ok, "\(outcome.message)")
        #expect(try PNGTesting.coders().decode(data: outcome.written).bytes == Self.rgba)
        // Every 16 rows, as png_write.c always did: 100 rows → rows 0, 16, ..., 96 (once per pass when interlaced).
        #expect(outcome.cancellationPolls == (interlaced ? 7 * 7 : 7))
    }

    @Test("a sink refusal anywhere returns the sink's status", arguments: [false, true])
    func sinkRefusal(interlaced: Bool) throws {
        // Given the full output's length
        let full = try Self.encode(interlaced: interlaced, EncodeHarness.Behaviour()).written.count
        // When the sink refuses at the signature, inside IHDR, in the IDAT data, at IEND (with either status)
        for (limit, refusal) in [(0, IP_STATUS_LIMIT_EXCEEDED), (10, IP_STATUS_NO_MEMORY), (full / 2, IP_STATUS_LIMIT_EXCEEDED),
                                 (full - 1, IP_STATUS_NO_MEMORY)] {
            let outcome = try Self.encode(interlaced: interlaced, EncodeHarness.Behaviour(acceptBytes: limit, refusal: ip_status(refusal)))
            // Then the encode fails with that status and a message, and nothing past the limit was written
            #expect(outcome.status == PluginStatus(rawValue: ip_status(refusal)), "limit \(limit): \(outcome.message)")
            #expect(outcome.message.contains("refused"), "limit \(limit): \(outcome.message)")
            #expect(outcome.written.count <= limit)
        }
    }

    @Test("cancellation at the first poll or mid-image returns .cancelled", arguments: [false, true])
    func cancellation(interlaced: Bool) throws {
        for poll in [0, 3] {
            let outcome = try Self.encode(interlaced: interlaced, EncodeHarness.Behaviour(cancelAtPoll: poll))
            #expect(outcome.status == .cancelled, "poll \(poll): \(outcome.message)")
            #expect(outcome.cancellationPolls == poll + 1)
            // The fast writer sends nothing before every row is compressed.
            if !interlaced { #expect(outcome.written.isEmpty) }
        }
    }
}
