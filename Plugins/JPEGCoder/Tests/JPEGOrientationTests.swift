import Foundation
import PipelineHost
import Testing
import TestSupport

/// Exif orientation: parsed from APP1 (both TIFF byte orders, IFD0 tag 0x0112) and applied by default.
@Suite("JPEG Exif orientation")
struct JPEGOrientationTests {
    static let upright = Scene.quadrants(width: 48, height: 32)
    /// ImageMagick's names for orientations 1...8 (`identify -format %[orientation]`).
    static let names = ["", "TopLeft", "TopRight", "BottomRight", "BottomLeft", "LeftTop", "RightTop", "RightBottom", "LeftBottom"]

    /// The stored raster that displays as `upright` under `orientation` (the inverse of the Exif transform).
    static func stored(_ upright: Raster, orientation: Int) -> Raster {
        let transposed = orientation >= 5
        let width = transposed ? upright.height : upright.width, height = transposed ? upright.width : upright.height
        var samples = [UInt8]()
        for y in 0..<height {
            for x in 0..<width {
                // Where stored (x, y) is displayed.
                let (dx, dy): (Int, Int)
                switch orientation {
                case 2: (dx, dy) = (upright.width - 1 - x, y)
                case 3: (dx, dy) = (upright.width - 1 - x, upright.height - 1 - y)
                case 4: (dx, dy) = (x, upright.height - 1 - y)
                case 5: (dx, dy) = (y, x)
                case 6: (dx, dy) = (upright.width - 1 - y, x)
                case 7: (dx, dy) = (upright.width - 1 - y, upright.height - 1 - x)
                case 8: (dx, dy) = (y, upright.height - 1 - x)
                default: (dx, dy) = (x, y)
                }
                samples += upright.pixel(x: dx, y: dy)
            }
        }
        return Raster(width: width, height: height, channels: 3, samples: samples)
    }

    /// A JPEG of the stored raster tagged with `orientation`.
    static func tagged(_ orientation: Int, littleEndian: Bool) throws -> (jpeg: [UInt8], stored: Raster) {
        let stored = stored(upright, orientation: orientation)
        let plain = try Tools.cjpeg(stored, "-quality 95 -sample 1x1")
        return (JPEGMarkers.insertingExif(orientation: UInt16(orientation), littleEndian: littleEndian, into: plain), stored)
    }

    @Test("each orientation 1-8, in both byte orders, decodes upright", arguments: 1...8, [true, false])
    func upright(orientation: Int, littleEndian: Bool) throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let (jpeg, _) = try Self.tagged(orientation, littleEndian: littleEndian)
        if Tools.hasImageMagick {
            // The fixture is what it claims to be: ImageMagick reads the same orientation from it.
            let seen = try Tools.output("identify -format '%[orientation]' in.jpg", files: ["in.jpg": jpeg])
            #expect(seen == Self.names[orientation])
        }
        let coders = try JPEGTesting.coders()
        let info = try coders.probe(data: jpeg)
        #expect((info.width, info.height) == (48, 32), "probe reports the displayed size")
        #expect(info.details.contains("Exif orientation \(orientation)"))
        let decoded = try JPEGTesting.decodeRGB(jpeg, coders: coders)
        // Tolerance: quality 95, 4:4:4, flat quadrants (only the edges between them ring a little).
        let difference = Difference(decoded, Self.upright)
        #expect(difference.sameSize && difference.mean < 1.5, "orientation \(orientation): \(difference)")
        for (x, y) in [(5, 5), (40, 5), (5, 26), (40, 26)] {
            let got = decoded.pixel(x: x, y: y), want = Self.upright.pixel(x: x, y: y)
            #expect(zip(got, want).allSatisfy { abs(Int($0) - Int($1)) <= 4 }, "(\(x), \(y)) is \(got), want \(want)")
        }
        if Tools.hasImageMagick {
            let reference = try Tools.convertToRGB(jpeg, "-auto-orient")
            let versus = Difference(decoded, reference)
            #expect(versus.sameSize && versus.maximum <= 1, "against convert -auto-orient: \(versus)")
        }
    }

    @Test("IP_DECODE_IGNORE_ORIENTATION decodes the stored pixels and probe reports the stored size", arguments: [6, 3])
    func ignored(orientation: Int) throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let (jpeg, stored) = try Self.tagged(orientation, littleEndian: false)
        let coders = try JPEGTesting.coders()
        let options = DecodeOptions(ignoreOrientation: true)
        let info = try coders.probe(data: jpeg, options: options)
        #expect((info.width, info.height) == (stored.width, stored.height))
        let difference = Difference(try JPEGTesting.decodeRGB(jpeg, options, coders: coders), stored)
        #expect(difference.sameSize && difference.mean < 1.5, "\(difference)")
    }

    @Test("a thumbnail of a rotated JPEG has the size of the rotated image's thumbnail")
    func rotatedThumbnail() throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let scene = Scene.make(width: 400, height: 240)
        let plain = try Tools.cjpeg(Self.stored(scene, orientation: 6))
        let jpeg = JPEGMarkers.insertingExif(orientation: 6, littleEndian: true, into: plain)
        let coders = try JPEGTesting.coders()
        let size = PixelSize(width: 60, height: 60)
        let thumbnail = try JPEGTesting.decodeRGB(jpeg, DecodeOptions(thumbnailSize: size), coders: coders)
        let full = try coders.decode(data: jpeg)
        let reference = Raster(try ImageTransformers.Resize.resample(full, to: size))
        #expect((thumbnail.width, thumbnail.height) == (60, 36))
        let difference = Difference(thumbnail, reference)
        #expect(difference.sameSize && difference.mean < 1.5, "\(difference)")
    }

    @Test("malformed Exif blocks are ignored (orientation 1), never read out of bounds")
    func malformedExif() throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let plain = try Tools.cjpeg(Self.upright, "-quality 95 -sample 1x1")
        let good = ExifPayloads.valid
        let payloads: [[UInt8]] = [
            Array("Exif".utf8) + [0, 0],                                       // no TIFF header
            Array("Exif".utf8) + [0, 0] + Array("II".utf8) + [42, 0],           // cut in the header
            Array("Exif".utf8) + [0, 0] + Array("XX".utf8) + [42, 0, 8, 0, 0, 0], // unknown byte order
            Array(good.prefix(good.count - 12)),                                // IFD entry cut off
            good.enumerated().map { $0.offset == 10 ? 0xFF : $0.element },      // IFD offset far past the end
            good.enumerated().map { [14: 0xFF, 16: 0x13][$0.offset] ?? $0.element }, // 255 entries, only one there
            good.enumerated().map { $0.offset == 24 ? 9 : $0.element },         // orientation 9
            good.enumerated().map { $0.offset == 18 ? 7 : $0.element },         // wrong type (UNDEFINED)
        ]
        let coders = try JPEGTesting.coders()
        for (index, payload) in payloads.enumerated() {
            let jpeg = JPEGMarkers.insertingAPP1(payload, into: plain)
            let decoded = try JPEGTesting.decodeRGB(jpeg, coders: coders)
            let difference = Difference(decoded, Self.upright)
            #expect(difference.sameSize && difference.mean < 1.5, "payload \(index): \(difference)")
        }
        // An APP1 segment whose length runs past the end of the file: probe still answers, decode is truncated.
        let runaway = Array(plain[0..<2]) + [0xFF, 0xE1, 0xFF, 0xF0] + Array(good.prefix(20))
        #expect(try JPEGTesting.decodeStatus(runaway, coders: coders) == .truncated)
    }
}

/// A valid little-endian Exif payload with orientation 6; offsets in `malformedExif` refer to it.
enum ExifPayloads {
    // 0-5 "Exif\0\0", 6-7 "II", 8-9 42, 10-13 IFD offset 8, 14-15 count 1, 16-17 tag, 18-19 type, 20-23 count,
    // 24-25 value, 26-27 padding, 28-31 next IFD.
    static let valid = JPEGMarkers.exifPayload(orientation: 6, littleEndian: true)
}
