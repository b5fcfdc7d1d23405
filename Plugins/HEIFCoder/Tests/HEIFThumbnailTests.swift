import Foundation
import PipelineHost
import TestSupport
import Testing

/// Shrink-on-load through embedded thumbnails.
///
/// Evidence that the thumbnail path ran, without timing: (1) probe's details name the path for the request;
/// (2) a pixel limit below the full image's size but above the thumbnail's refuses the full decode and lets the
/// thumbnail decode through (the coder checks limits against what it actually decodes); (3) the result matches
/// the full decode downscaled by the host within a loose tolerance (the thumbnail is a separately encoded,
/// lower-quality picture, and a different downscale path).
@Suite struct HEIFThumbnailTests {
    static func arrow() throws -> [UInt8]? {
        guard let corpus = try HEIFTest.corpus("thumbnails") else { return nil }
        return try TestFiles.read(corpus + "/heif/pillow-arrow.heic")  // 3024x4032 grid, thumbnail 240x320
    }

    /// Below the 12-megapixel full image, above the 77-kilopixel thumbnail.
    static let tightLimits = DecodeLimits(maxPixels: 1_000_000)

    @Test(.requiresCorpus) func thumbnailCoveringTheRequestIsDecodedInstead() throws {
        guard let bytes = try Self.arrow() else { return }
        let box = PixelSize(width: 200, height: 200)
        let info = try HEIFTest.probe(bytes, DecodeOptions(thumbnailSize: box))
        #expect(info.details.contains("thumbnails 240x320"), "\(info.details)")
        #expect(info.details.contains("at 200x200: embedded thumbnail 240x320"), "\(info.details)")

        let fast = try HEIFTest.decode(bytes, DecodeOptions(thumbnailSize: box, limits: Self.tightLimits))
        #expect((fast.width, fast.height) == (150, 200))
        #expect(throws: (any Error).self, "the full image must be refused by the same limit") {
            try HEIFTest.decode(bytes, DecodeOptions(limits: Self.tightLimits))
        }

        let full = try HEIFTest.decode(bytes)
        let downscaled = try ImageTransformers.Resize.resample(full, to: box)
        try #require((downscaled.width, downscaled.height) == (fast.width, fast.height))
        let quality = ImageComparison.psnr(fast, downscaled)
        #expect(quality >= 28, "thumbnail vs full decode + downscale: PSNR \(quality) dB")
        print("arrow 200x200: embedded thumbnail vs full decode + host downscale: PSNR \(String(format: "%.1f", quality)) dB")
    }

    @Test(.requiresCorpus) func aspectFillUsesTheThumbnailWhenItCoversTheDrawnSize() throws {
        guard let bytes = try Self.arrow() else { return }
        let options = DecodeOptions(thumbnailSize: PixelSize(width: 200, height: 200), scaleMode: .aspectFill, limits: Self.tightLimits)
        let image = try HEIFTest.decode(bytes, options)
        #expect((image.width, image.height) == (200, 200))
    }

    /// Without transformations the thumbnail's coded size (320x240) stands in for the image's (4032x3024).
    @Test(.requiresCorpus) func ignoringOrientationUsesTheCodedSizes() throws {
        guard let bytes = try Self.arrow() else { return }
        let options = DecodeOptions(thumbnailSize: PixelSize(width: 200, height: 200), ignoreOrientation: true, limits: Self.tightLimits)
        let image = try HEIFTest.decode(bytes, options)
        #expect((image.width, image.height) == (200, 150))
    }

    @Test(.requiresCorpus) func requestLargerThanTheThumbnailDecodesTheFullImage() throws {
        guard let bytes = try Self.arrow() else { return }
        let box = PixelSize(width: 400, height: 400)
        #expect(try HEIFTest.probe(bytes, DecodeOptions(thumbnailSize: box)).details.contains("at 400x400: full decode"))
        #expect(throws: (any Error).self) { try HEIFTest.decode(bytes, DecodeOptions(thumbnailSize: box, limits: Self.tightLimits)) }
    }

    /// libheif-example.heic's thumbnail is 320x212 for a 1280x854 image: its aspect is rounded differently, so the
    /// host would place it one pixel shorter (160x106 instead of 160x107). The coder keeps the full decode then.
    @Test(.requiresCorpus) func thumbnailThatWouldChangeTheOutputSizeIsNotUsed() throws {
        guard let corpus = try HEIFTest.corpus("thumbnails") else { return }
        let bytes = try TestFiles.read(corpus + "/heif/libheif-example.heic")
        let options = DecodeOptions(thumbnailSize: PixelSize(width: 160, height: 160))
        #expect(try HEIFTest.probe(bytes, options).details.contains("at 160x160: full decode"))
        let image = try HEIFTest.decode(bytes, options)
        #expect((image.width, image.height) == (160, 107))
    }

    /// A small file with alpha: the 64x64 alpha thumbnail of the 72x72 image serves a 32x32 request.
    @Test(.requiresCorpus) func alphaThumbnail() throws {
        guard let corpus = try HEIFTest.corpus("thumbnails") else { return }
        let bytes = try TestFiles.read(corpus + "/heif/libheif-colors-with-alpha-thumbnail.heic")
        let box = PixelSize(width: 32, height: 32)
        #expect(try HEIFTest.probe(bytes, DecodeOptions(thumbnailSize: box)).details.contains("embedded thumbnail 64x64"))
        let fast = try HEIFTest.decode(bytes, DecodeOptions(thumbnailSize: box, limits: DecodeLimits(maxPixels: 64 * 64)))
        #expect((fast.width, fast.height, fast.alphaMode) == (32, 32, .straight))
        let downscaled = try ImageTransformers.Resize.resample(try HEIFTest.decode(bytes), to: box)
        let quality = ImageComparison.psnr(fast, downscaled)
        #expect(quality >= 25, "PSNR \(quality) dB")
        print("colors-with-alpha 32x32: embedded thumbnail vs full decode + host downscale: PSNR \(String(format: "%.1f", quality)) dB")
    }
}
