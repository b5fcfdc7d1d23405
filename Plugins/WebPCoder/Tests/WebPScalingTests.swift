import Foundation
import PipelineHost
import Testing
import TestSupport

/// Shrink-on-load: libwebp's scaler decodes a still image at (or just above) the requested output size.
@Suite("WebP shrink-on-load")
struct WebPScalingTests {
    static func photo() throws -> (folder: String, bytes: [UInt8]) {
        let folder = try WebPTesting.workspace()
        try WebPTesting.run("cwebp -quiet -q 80 photo.png -o photo.webp", in: folder)
        return (folder, try TestFiles.read(folder + "/photo.webp"))
    }

    @Test("fit: the output is exactly dwebp -scale at the placement's size")
    func fitMatchesDwebpScale() throws {
        guard WebPTesting.hasTools else { try Skip.because(WebPTesting.missing, bootstrapProvides: true) }
        let (folder, bytes) = try Self.photo()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let image = try WebPTesting.coders().decode(data: bytes, options: DecodeOptions(thumbnailSize: PixelSize(width: 100, height: 100)))
        #expect((image.width, image.height) == (100, 75))
        let reference = try WebPTesting.dwebp("photo.webp", in: folder, arguments: "-scale 100 75")
        let difference = WebPTesting.compare(image.bytes, reference.bytes, width: 100)
        #expect(difference.maxChannel == 0, "\(difference)")
    }

    @Test("scaled output is close to a full decode downsampled by ImageMagick (box filter): mean ≤ 1.5, max ≤ 24")
    func closeToFullDecode() throws {
        guard WebPTesting.hasTools else { try Skip.because(WebPTesting.missing, bootstrapProvides: true) }
        let (folder, bytes) = try Self.photo()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let image = try WebPTesting.coders().decode(data: bytes, options: DecodeOptions(thumbnailSize: PixelSize(width: 160, height: 160)))
        #expect((image.width, image.height) == (160, 120))
        try WebPTesting.run("dwebp -quiet photo.webp -o full.png && convert full.png -filter box -resize 160x120! small.png", in: folder)
        let reference = try WebPTesting.png("small.png", in: folder)
        let difference = WebPTesting.compare(image.bytes, reference.bytes, width: 160, tolerance: 24)
        print("WebP shrink-on-load 640x480 → 160x120 vs full decode + ImageMagick box resize: \(difference)")
        #expect(difference.meanChannel <= 1.5 && difference.pixelsOverTolerance == 0, "\(difference)")
    }

    @Test("fill, aspect-fill, one side, a box larger than the image: the sizes the host's placement gives")
    func modes() throws {
        guard WebPTesting.hasTools else { try Skip.because(WebPTesting.missing, bootstrapProvides: true) }
        let (folder, bytes) = try Self.photo()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let coders = try WebPTesting.coders()
        func size(_ w: Int, _ h: Int, _ mode: ScaleMode, upscale: Bool = false) throws -> [Int] {
            let image = try coders.decode(data: bytes, options: DecodeOptions(
                thumbnailSize: PixelSize(width: w, height: h), scaleMode: mode, allowUpscale: upscale))
            return [image.width, image.height]
        }
        #expect(try size(100, 30, .fill) == [100, 30])
        #expect(try size(50, 50, .aspectFill) == [50, 50])
        #expect(try size(120, 0, .fit) == [120, 90])
        #expect(try size(0, 60, .fit) == [80, 60])
        #expect(try size(1000, 1000, .fit) == [640, 480])
        #expect(try size(1280, 1280, .fit, upscale: true) == [1280, 960])
        #expect(try size(2000, 100, .fill) == [2000, 100])
        // Aspect-fill crops the centre of a decode at the drawn size: compare with dwebp's scale of that size.
        let cropped = try coders.decode(data: bytes, options: DecodeOptions(thumbnailSize: PixelSize(width: 50, height: 50), scaleMode: .aspectFill))
        let drawn = try WebPTesting.dwebp("photo.webp", in: folder, arguments: "-scale 67 50")
        var centre: [UInt8] = []
        for y in 0..<50 { centre += drawn.bytes[(y * 67 + 8) * 4..<(y * 67 + 58) * 4] }
        let difference = WebPTesting.compare(cropped.bytes, centre, width: 50, tolerance: 40)
        #expect(difference.meanChannel < 3, "aspect-fill vs centre of dwebp -scale 67 50: \(difference)")
    }

    @Test("the descriptor claims FAST_THUMBNAIL but not SCALES")
    func capabilities() throws {
        let coder = try #require(try WebPTesting.coders().coders.first)
        #expect(coder.descriptor.capabilities.contains(.fastThumbnail))
        #expect(!coder.descriptor.capabilities.contains(.scales))
    }
}
