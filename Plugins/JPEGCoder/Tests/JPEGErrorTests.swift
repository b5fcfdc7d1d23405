import Foundation
import PipelineHost
import Testing
import TestSupport

/// Bad input gives the right status with a message, never a crash, a hang or a huge allocation.
@Suite("JPEG errors and limits")
struct JPEGErrorTests {
    static let scene = Scene.make(width: 120, height: 90)

    @Test("a JPEG cut anywhere (even just its EOI) is .truncated", arguments: ["", "-progressive"])
    func truncated(_ arguments: String) throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let jpeg = try Tools.cjpeg(Self.scene, arguments)
        let coders = try JPEGTesting.coders()
        // From just past the 3-byte magic to one byte short of the end; a stride keeps the test short.
        var lengths = Array(stride(from: 4, to: jpeg.count, by: max(1, jpeg.count / 150)))
        lengths += [jpeg.count - 2, jpeg.count - 1]
        for length in lengths {
            let error = #expect(throws: PipelineError.self, "cut at \(length) of \(jpeg.count)") {
                _ = try coders.decode(data: Array(jpeg.prefix(length)))
            }
            #expect(error?.status == .truncated, "cut at \(length): \(error.map { "\($0)" } ?? "")")
        }
        #expect(try JPEGTesting.decodeStatus(jpeg, coders: coders) == nil)
    }

    @Test("garbage after the SOI marker is an error: .invalidData, or what the first random marker implies")
    func garbage() throws {
        var generator = SplitMix64(seed: 7)
        let coders = try JPEGTesting.coders()
        for round in 0..<40 {
            let bytes = [0xFF, 0xD8, 0xFF] + (0..<2000).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let status = try JPEGTesting.decodeStatus(bytes, coders: coders)
            // Mostly an invalid marker; a random byte may also start a segment whose length runs past the data
            // (.truncated) or name a JPEG process libjpeg does not implement, such as lossless SOF3 (.unsupported).
            #expect([.invalidData, .truncated, .unsupported].contains(status), "round \(round): \(String(describing: status))")
        }
        #expect(try JPEGTesting.decodeStatus([0xFF, 0xD8, 0xFF, 0x17] + [UInt8](repeating: 0x55, count: 100), coders: coders) == .invalidData)
    }

    @Test("corrupt entropy-coded data is .invalidData (libjpeg's 'Corrupt JPEG data' warnings are errors)")
    func corruptScan() throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let jpeg = try Tools.cjpeg(Self.scene, "-quality 90")
        let start = try #require(JPEGMarkers.scanData(in: jpeg))
        // Restart markers where none belong: libjpeg resynchronises and warns.
        var markers = jpeg
        for i in stride(from: start + 200, to: start + 260, by: 2) { markers[i] = 0xFF; markers[i + 1] = 0xD3 }
        let error = #expect(throws: PipelineError.self) { _ = try JPEGTesting.coders().decode(data: markers) }
        #expect(error?.status == .invalidData)
        #expect("\(error.map { "\($0)" } ?? "")".contains("Corrupt JPEG data"))
    }

    @Test("padding bytes before a marker are tolerated, as every decoder does")
    func padding() throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let jpeg = try Tools.cjpeg(Self.scene)
        let sos = try #require(JPEGMarkers.offset(of: 0xDA, in: jpeg))
        let padded = Array(jpeg[..<sos]) + [0x00, 0x11, 0x22] + Array(jpeg[sos...])
        let difference = Difference(try JPEGTesting.decodeRGB(padded), try JPEGTesting.decodeRGB(jpeg))
        #expect(difference.maximum == 0)
    }

    @Test("random damage never crashes: every result is an image or a clean error")
    func fuzz() throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let coders = try JPEGTesting.coders()
        var generator = SplitMix64(seed: 20240601)
        for arguments in ["", "-progressive", "-arithmetic -restart 2"] {
            let jpeg = try Tools.cjpeg(Scene.make(width: 40, height: 30), arguments)
            for round in 0..<150 {
                var damaged = jpeg
                for _ in 0..<(1 + round % 6) {
                    let index = Int.random(in: 2..<damaged.count, using: &generator)
                    damaged[index] ^= UInt8.random(in: 1...255, using: &generator)
                }
                let status = try JPEGTesting.decodeStatus(damaged, coders: coders)
                let allowed: [PluginStatus?] = [nil, .invalidData, .truncated, .unsupported, .limitExceeded]
                #expect(allowed.contains(status), "\(arguments) round \(round): \(String(describing: status))")
                _ = try? coders.probe(data: damaged)
            }
        }
    }

    @Test("a header claiming 65535x65535 is .limitExceeded (over libjpeg's 65500) and probe still reports it")
    func overLibjpegMaximum() throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let jpeg = JPEGMarkers.claimingSize(width: 65535, height: 65535, try Tools.cjpeg(Self.scene))
        let coders = try JPEGTesting.coders()
        let info = try coders.probe(data: jpeg)
        #expect((info.width, info.height) == (65535, 65535))
        let unlimited = DecodeOptions(limits: DecodeLimits(maxPixels: 0, maxDimension: 0))
        #expect(try JPEGTesting.decodeStatus(jpeg, unlimited, coders: coders) == .limitExceeded)
        #expect(try JPEGTesting.decodeStatus(jpeg, coders: coders) == .limitExceeded)
    }

    @Test("a small file claiming 65500x65500 is refused before any pixel buffer is allocated")
    func hugeHeaderWithoutAllocating() throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let jpeg = JPEGMarkers.claimingSize(width: 65500, height: 65500, try Tools.cjpeg(Self.scene))
        // With the host's default limits: the pixel limit.
        #expect(try JPEGTesting.decodeStatus(jpeg) == .limitExceeded)
        #expect(try JPEGTesting.decodeStatus(jpeg, DecodeOptions(thumbnailSize: PixelSize(width: 64, height: 64))) == .limitExceeded)
        // Without limits: the file cannot hold one bit per block, so it is truncated. The direct harness counts
        // allocations: there are none (a final incremental update runs the ordinary decode path).
        let direct = try DirectCoder()
        let session = try direct.session(DecodeOptions(limits: DecodeLimits(maxPixels: 0, maxDimension: 0)))
        let result = session.update(jpeg, final: true)
        #expect(result.status == .truncated, "\(result.message)")
        #expect(result.allocations == 0)
    }

    @Test("a progressive file with more than 1000 scans is .limitExceeded (libjpeg-turbo's scan-count DoS)")
    func tooManyScans() throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        // cjpeg refuses scripts of more than 100 scans, so repeat the first (DC) scan: libjpeg accepts a DC
        // first scan again (no "inconsistent progression" warning), which is exactly the denial-of-service shape.
        let progressive = try Tools.cjpeg(Scene.make(width: 16, height: 16), "-progressive")
        let sos = try #require(ScanSurgery.firstScan(in: progressive))
        let scan = Array(progressive[sos])
        let jpeg = Array(progressive[..<sos.upperBound]) + Array(repeating: scan, count: 1100).joined()
            + Array(progressive[sos.upperBound...])
        let error = #expect(throws: PipelineError.self) { _ = try JPEGTesting.coders().decode(data: jpeg) }
        #expect(error?.status == .limitExceeded)
        #expect("\(error.map { "\($0)" } ?? "")".contains("scans"))
        let preview = try DirectCoder().session().update(jpeg, final: false)
        #expect(preview.status == .limitExceeded, "\(preview.message)")
    }

    @Test("limits are honoured before allocating: pixels, dimension, input bytes")
    func limits() throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let jpeg = try Tools.cjpeg(Self.scene)
        #expect(try JPEGTesting.decodeStatus(jpeg, DecodeOptions(limits: DecodeLimits(maxPixels: 120 * 90 - 1))) == .limitExceeded)
        #expect(try JPEGTesting.decodeStatus(jpeg, DecodeOptions(limits: DecodeLimits(maxDimension: 100))) == .limitExceeded)
        #expect(try JPEGTesting.decodeStatus(jpeg, DecodeOptions(limits: DecodeLimits(maxInputBytes: jpeg.count - 1))) == .limitExceeded)
        #expect(try JPEGTesting.decodeStatus(jpeg, DecodeOptions(limits: DecodeLimits(maxPixels: 120 * 90))) == nil)
    }

    @Test("libjpeg's warnings are not printed to stderr")
    func silent() throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let jpeg = try Tools.cjpeg(Self.scene)
        let sos = try #require(JPEGMarkers.offset(of: 0xDA, in: jpeg))
        let padded = Array(jpeg[..<sos]) + [0x00, 0x11] + Array(jpeg[sos...])     // "extraneous bytes" warning
        let cut = Array(jpeg.prefix(jpeg.count / 2))                              // "premature end" warning
        let coders = try JPEGTesting.coders()
        let printed = try StandardError.capture {
            _ = try? coders.decode(data: padded)
            _ = try? coders.decode(data: cut)
        }
        #expect(!printed.contains("JPEG"), "libjpeg printed: \(printed)")
    }
}

enum ScanSurgery {
    /// The byte range of the first scan: its SOS segment and the entropy-coded data up to the next marker.
    static func firstScan(in jpeg: [UInt8]) -> Range<Int>? {
        guard let sos = JPEGMarkers.offset(of: 0xDA, in: jpeg), var end = JPEGMarkers.scanData(in: jpeg) else { return nil }
        // A marker is 0xFF followed by anything but 0x00 (stuffing) or a restart marker.
        while end + 1 < jpeg.count, !(jpeg[end] == 0xFF && jpeg[end + 1] != 0 && !(0xD0...0xD7).contains(jpeg[end + 1])) {
            end += 1
        }
        return sos..<end
    }
}

/// Captures what the process writes to file descriptor 2 while `body` runs.
/// (Process-wide, but only checked for libjpeg's own warning texts, which no other test prints.)
enum StandardError {
    static func capture(_ body: () throws -> Void) throws -> String {
        let file = try TestPaths.temporaryDirectory("imagepipe-stderr") + "/stderr.txt"
        let saved = dup(2)
        let target = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard saved >= 0, target >= 0 else { throw TestSupportError("cannot redirect stderr") }
        dup2(target, 2)
        close(target)
        defer {
            dup2(saved, 2)
            close(saved)
        }
        try body()
        return (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
    }
}
