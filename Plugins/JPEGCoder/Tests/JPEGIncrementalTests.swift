import Foundation
import PipelineHost
import Testing
import TestSupport

/// Incremental decoding of a download in progress, through the coder's incremental slots (see `DirectCoder`).
@Suite("JPEG incremental decoding")
struct JPEGIncrementalTests {
    static let scene = Scene.make(width: 320, height: 240)

    @Test("growing prefixes of a progressive JPEG: NEED_MORE, then previews that improve, then the final image")
    func progressive() throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let jpeg = try Tools.cjpeg(Self.scene, "-progressive -quality 90")
        let final = try JPEGTesting.decodeRGB(jpeg)
        let session = try DirectCoder().session()
        // The header alone, and the header with part of the first (DC) scan: no preview yet.
        let firstScan = try #require(JPEGMarkers.scanData(in: jpeg))
        for length in [2, 100, firstScan - 1, firstScan + 20] {
            let update = session.update(Array(jpeg.prefix(length)), final: false)
            #expect(update.status == .needMore, "\(length) bytes: \(update.message)")
        }
        var previousPSNR = 0.0
        var previews = 0
        for percent in stride(from: 10, through: 100, by: 10) {
            let length = jpeg.count * percent / 100
            let update = session.update(Array(jpeg.prefix(length)), final: false)
            guard update.status == .ok, let preview = update.raster else {
                #expect(update.status == .needMore, "\(percent)%: \(update.message)")
                continue
            }
            previews += 1
            #expect((preview.width, preview.height) == (320, 240))
            let psnr = Difference(preview, final).psnr
            // More data never makes the preview worse (allow 0.5 dB of wobble inside a refinement scan).
            #expect(psnr >= previousPSNR - 0.5, "\(percent)%: PSNR \(psnr) after \(previousPSNR)")
            previousPSNR = psnr
            if percent == 100 { #expect(Difference(preview, final).maximum == 0) }
        }
        #expect(previews >= 8, "a preview for most prefixes")
        let done = session.update(jpeg, final: true)
        #expect(done.status == .ok)
        #expect(done.raster.map { Difference($0, final).maximum } == 0)
    }

    @Test("a download cut anywhere gives a preview or NEED_MORE, never an error (also inside the tables between scans)",
          arguments: ["-progressive", "-progressive -sample 1x1 -restart 1", "", "-arithmetic -progressive"])
    func everyPrefix(_ arguments: String) throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let jpeg = try Tools.cjpeg(Scene.make(width: 96, height: 64), arguments)
        let session = try DirectCoder().session()
        // Every length that ends inside a marker segment (DHT/SOS headers between scans, where libjpeg suspends in
        // the middle of a table), plus a stride through the scan data.
        var lengths = Set(stride(from: 0, to: jpeg.count, by: 13))
        for segment in JPEGMarkers.segments(in: jpeg) { lengths.formUnion(segment) }
        var previews = 0
        for length in lengths.sorted() {
            let update = session.update(Array(jpeg.prefix(length)), final: false)
            #expect(update.status == .ok || update.status == .needMore, "\(arguments), \(length) bytes: \(update.message)")
            if update.status == .ok { previews += 1 }
        }
        // Arithmetic coding cannot suspend: no preview before the whole file is there.
        #expect(arguments.contains("arithmetic") ? previews == 0 : previews > 0)
        #expect(session.update(jpeg, final: false).status == .ok)
    }

    @Test("a baseline JPEG previews from the top: received rows are final, the rest is mid-gray")
    func baseline() throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let jpeg = try Tools.cjpeg(Self.scene, "-quality 90")
        let final = try JPEGTesting.decodeRGB(jpeg)
        let session = try DirectCoder().session()
        let update = session.update(Array(jpeg.prefix(jpeg.count / 2)), final: false)
        #expect(update.status == .ok, "\(update.message)")
        let preview = try #require(update.raster)
        // The top quarter is certainly complete at half the data; the last row certainly is not.
        let top = Raster(width: 320, height: 60, channels: 3, samples: Array(preview.samples.prefix(320 * 60 * 3)))
        let finalTop = Raster(width: 320, height: 60, channels: 3, samples: Array(final.samples.prefix(320 * 60 * 3)))
        #expect(Difference(top, finalTop).maximum == 0)
        let bottom = preview.pixel(x: 160, y: 239)
        #expect(bottom.allSatisfy { abs(Int($0) - 128) <= 2 }, "\(bottom)")
    }

    @Test("the final update of an incomplete download is .truncated; garbage is .invalidData")
    func finalAndErrors() throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let jpeg = try Tools.cjpeg(Self.scene, "-progressive")
        let direct = try DirectCoder()
        #expect(try direct.session().update(Array(jpeg.prefix(jpeg.count * 3 / 4)), final: true).status == .truncated)
        #expect(try direct.session().update([0x47, 0x49, 0x46, 0x38], final: false).status == .invalidData)
        #expect(try direct.session().update([], final: false).status == .needMore)
    }

    @Test("previews honour the thumbnail size (shrink-on-load) and the orientation")
    func options() throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let plain = try Tools.cjpeg(Self.scene, "-progressive")
        let jpeg = JPEGMarkers.insertingExif(orientation: 8, littleEndian: false, into: plain)
        let session = try DirectCoder().session(DecodeOptions(thumbnailSize: PixelSize(width: 50, height: 50)))
        let update = session.update(Array(jpeg.prefix(jpeg.count / 2)), final: false)
        #expect(update.status == .ok, "\(update.message)")
        // 320x240 turned to 240x320; the smallest DCT scale covering 38x50 is 2/8: 60x80.
        #expect(update.raster.map { [$0.width, $0.height] } == [60, 80])
    }
}
