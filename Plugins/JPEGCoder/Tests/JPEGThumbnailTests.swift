import Foundation
import PipelineHost
import Testing
import TestSupport

/// Shrink-on-load: libjpeg's DCT scaling to the smallest n/8 that still covers the request, then the host's
/// resampler. The result must match a full decode followed by the same resampling.
@Suite("JPEG shrink-on-load")
struct JPEGThumbnailTests {
    struct Case: Sendable, CustomStringConvertible {
        var width: Int, height: Int, box: PixelSize, mode: ScaleMode, upscale = false
        var description: String { "\(width)x\(height) -> \(box) \(mode)\(upscale ? " upscale" : "")" }
    }

    static let cases: [Case] = [
        Case(width: 800, height: 600, box: PixelSize(width: 100, height: 100), mode: .fit),
        Case(width: 801, height: 599, box: PixelSize(width: 64, height: 64), mode: .fit),
        Case(width: 1000, height: 333, box: PixelSize(width: 120, height: 0), mode: .fit),
        Case(width: 777, height: 555, box: PixelSize(width: 0, height: 100), mode: .fit),
        Case(width: 800, height: 600, box: PixelSize(width: 90, height: 150), mode: .fill),
        Case(width: 803, height: 601, box: PixelSize(width: 150, height: 60), mode: .aspectFill),
        Case(width: 640, height: 480, box: PixelSize(width: 300, height: 300), mode: .aspectFill),
        Case(width: 640, height: 480, box: PixelSize(width: 1000, height: 1000), mode: .aspectFill),
        Case(width: 640, height: 480, box: PixelSize(width: 1000, height: 900), mode: .fit, upscale: true),
        Case(width: 333, height: 250, box: PixelSize(width: 250, height: 250), mode: .fit),
    ]

    /// Tolerance: mean absolute difference <= 1.6 and PSNR >= 35 dB (measured: mean 0.67-1.42, PSNR 36.9-43.2 dB).
    /// No bound on the maximum: at hard edges it reaches ~70, because libjpeg scales a partial last block as a whole
    /// one (801 px at 1/8 gives 101 px for 100.125) and the n/8 IDCTs are not area averages, so edges move by a
    /// fraction of an output pixel.
    @Test("thumbnail = full decode + host resampling (same size; mean <= 1.6, PSNR >= 35 dB)", arguments: cases)
    func matchesFullDecode(_ c: Case) throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let jpeg = try Tools.cjpeg(Scene.make(width: c.width, height: c.height), "-quality 90")
        let coders = try JPEGTesting.coders()
        let options = DecodeOptions(thumbnailSize: c.box, scaleMode: c.mode, allowUpscale: c.upscale)
        let thumbnail = try JPEGTesting.decodeRGB(jpeg, options, coders: coders)
        let full = try coders.decode(data: jpeg)
        let reference = Raster(try ImageTransformers.Resize.resample(full, to: c.box, mode: c.mode, allowUpscale: c.upscale))
        #expect((thumbnail.width, thumbnail.height) == (reference.width, reference.height), "\(c)")
        let difference = Difference(thumbnail, reference)
        #expect(difference.mean <= 1.6 && difference.psnr >= 35, "\(c): \(difference)")
    }

    @Test("4000x3000 -> 256: the coder decodes at 1/8 (equals djpeg -scale 1/8 + host resampling)")
    func usesDCTScaling() throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let jpeg = try Tools.cjpeg(Scene.make(width: 4000, height: 3000), "-quality 85")
        let box = PixelSize(width: 256, height: 256)
        let thumbnail = try JPEGTesting.decodeRGB(jpeg, DecodeOptions(thumbnailSize: box))
        #expect((thumbnail.width, thumbnail.height) == (256, 192))
        let eighth = try Tools.djpeg(jpeg, "-scale 1/8")
        #expect((eighth.width, eighth.height) == (500, 375))
        let reference = Raster(try ImageTransformers.Resize.resample(try eighth.image(), to: box))
        let difference = Difference(thumbnail, reference)
        #expect(difference.maximum == 0, "\(difference)")
    }

    @Test("the smallest covering scale is chosen: 4000x3000 -> 600 wide needs 2/8 (1000x750), not 1/8")
    func smallestCoveringScale() throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let jpeg = try Tools.cjpeg(Scene.make(width: 4000, height: 3000), "-quality 85")
        let box = PixelSize(width: 600, height: 0)
        let thumbnail = try JPEGTesting.decodeRGB(jpeg, DecodeOptions(thumbnailSize: box))
        let reference = Raster(try ImageTransformers.Resize.resample(try Tools.djpeg(jpeg, "-scale 2/8").image(), to: box))
        #expect(Difference(thumbnail, reference).maximum == 0)
    }
}
