import Foundation
import PipelineHost
import Testing
import TestSupport

/// Encoding through the host: quality, progressive, the chroma subsampling rule, RGBA16 and premultiplied input.
@Suite("JPEG encode")
struct JPEGEncodeTests {
    static let scene = Scene.make(width: 160, height: 120)

    struct Case: Sendable, CustomStringConvertible {
        var quality: Int, progressive: Bool, sampling: String, minimumPSNR: Double
        var description: String { "q\(quality)\(progressive ? " progressive" : "")" }
    }

    /// PSNR thresholds: measured on the synthetic scene (29.95, 30.78, 31.94, 38.44 and 50.76 dB on Debian 12's
    /// libjpeg-turbo 2.1.5) less about 2 dB. Below quality 90 the hard-edged yellow disc loses most to 4:2:0
    /// chroma subsampling; from 90 up chroma is kept whole and the jump is visible.
    @Test("round trip: decoded PSNR above the threshold, sampling as documented", arguments: [
        Case(quality: 50, progressive: false, sampling: "4:2:0", minimumPSNR: 28),
        Case(quality: 75, progressive: false, sampling: "4:2:0", minimumPSNR: 29),
        Case(quality: 89, progressive: true, sampling: "4:2:0", minimumPSNR: 30),
        Case(quality: 90, progressive: false, sampling: "4:4:4", minimumPSNR: 36),
        Case(quality: 100, progressive: true, sampling: "4:4:4", minimumPSNR: 48),
    ])
    func roundTrip(_ c: Case) throws {
        let coders = try JPEGTesting.coders()
        let jpeg = try coders.encode(try Self.scene.image(), format: "jpeg",
                                     options: EncodeOptions(quality: c.quality, progressive: c.progressive))
        let info = try coders.probe(data: jpeg)
        #expect(info.details.hasPrefix("\(c.progressive ? "progressive" : "baseline"), YCbCr \(c.sampling), 8-bit, JFIF"),
                "\(c): \(info.details)")
        let decoded = try JPEGTesting.decodeRGB(jpeg, coders: coders)
        let difference = Difference(decoded, Self.scene)
        #expect(difference.sameSize && difference.psnr >= c.minimumPSNR, "\(c): \(difference), \(jpeg.count) bytes")
        if Tools.hasLibjpegProgs {
            // Interoperability: djpeg reads the file and sees the same pixels.
            #expect(Difference(decoded, try Tools.djpeg(jpeg)).maximum == 0)
        }
    }

    @Test("the output is byte for byte what cjpeg writes with the same settings", arguments: [
        (75, false, "-quality 75 -optimize"), (92, false, "-quality 92 -sample 1x1 -optimize"),
        (60, true, "-quality 60 -progressive"),
    ])
    func sameAsCjpeg(quality: Int, progressive: Bool, arguments: String) throws {
        guard Tools.hasLibjpegProgs else { try Skip.because(Tools.libjpegProgsMissing, bootstrapProvides: true) }
        let ours = try JPEGTesting.coders().encode(try Self.scene.image(), format: "jpeg",
                                                   options: EncodeOptions(quality: quality, progressive: progressive))
        #expect(ours == (try Tools.cjpeg(Self.scene, arguments)), "cjpeg \(arguments)")
    }

    @Test("default quality is 85 (4:2:0); higher quality makes a larger file; \"jpg\" names the same encoder")
    func defaults() throws {
        let coders = try JPEGTesting.coders()
        let image = try Self.scene.image()
        let standard = try coders.encode(image, format: "jpg")
        #expect(try coders.probe(data: standard).details.contains("4:2:0"))
        let q85 = try coders.encode(image, format: "jpeg", options: EncodeOptions(quality: 85))
        #expect(standard == q85)
        let q40 = try coders.encode(image, format: "jpeg", options: EncodeOptions(quality: 40))
        #expect(q40.count < q85.count)
    }

    @Test("translucent input is composited onto the background (white by default) before alpha is dropped")
    func premultiplied() throws {
        // Colour (200, 100, 50) at alpha 128, stored premultiplied.
        let premultiplied: [UInt8] = [100, 50, 25, 128]
        let image = try Image(width: 16, height: 16, pixelFormat: .rgba8, alphaMode: .premultiplied,
                              bytes: Array((0..<256).map { _ in premultiplied }.joined()))
        let coders = try JPEGTesting.coders()
        // Over white: premultiplied colour + 255 × (1 − 128/255) = +127.
        for (background, expected) in [(nil, [227, 177, 152]), (RGBAColor(red: 0, green: 0, blue: 0), [100, 50, 25]),
                                       (RGBAColor(red: 0, green: 0, blue: 255), [100, 50, 152])] as [(RGBAColor?, [Int])] {
            let encoded = try coders.encode(image, format: "jpeg", options: EncodeOptions(quality: 95, background: background))
            let pixel = try JPEGTesting.decodeRGB(encoded, coders: coders).pixel(x: 8, y: 8)
            #expect(zip(pixel, expected).allSatisfy { abs(Int($0) - $1) <= 2 }, "\(String(describing: background)): \(pixel)")
        }
    }

    @Test("RGBA16 input is scaled to 8 bits")
    func sixteenBit() throws {
        var bytes = [UInt8]()
        for y in 0..<32 {
            for x in 0..<32 {
                let values: [UInt16] = [UInt16(x * 2000), UInt16(y * 2000), 40000, 65535]
                for v in values { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
            }
        }
        let image = try Image(width: 32, height: 32, pixelFormat: .rgba16, alphaMode: .none, bytes: bytes)
        let coders = try JPEGTesting.coders()
        let decoded = try JPEGTesting.decodeRGB(try coders.encode(image, format: "jpeg", options: EncodeOptions(quality: 100)),
                                                coders: coders)
        var expected = [UInt8]()
        for y in 0..<32 {
            for x in 0..<32 { expected += [x * 2000, y * 2000, 40000].map { UInt8(($0 * 255 + 32767) / 65535) } }
        }
        let difference = Difference(decoded, Raster(width: 32, height: 32, channels: 3, samples: expected))
        #expect(difference.maximum <= 3, "\(difference)")
    }

    @Test("lossless and bit depths other than 8 are .unsupported")
    func unsupportedOptions() throws {
        let coders = try JPEGTesting.coders()
        let image = try Self.scene.image()
        for options in [EncodeOptions(lossless: true), EncodeOptions(bitDepth: 12), EncodeOptions(bitDepth: 16)] {
            let error = #expect(throws: PipelineError.self) { _ = try coders.encode(image, format: "jpeg", options: options) }
            #expect(error?.status == .unsupported, "\(options)")
        }
        #expect(throws: Never.self) { _ = try coders.encode(image, format: "jpeg", options: EncodeOptions(bitDepth: 8)) }
    }
}
