import Foundation
import PipelineHost
import TestSupport
import Testing

/// HEIC encoding through libheif + x265 (when libheif has an HEVC encoder; the tests skip otherwise).
///
/// Thresholds (PSNR over RGBA on the 8-bit scale, quality 90, x265 preset "superfast"; measured values in brackets):
/// 96x64 RGBA ≥ 40 dB [44.0]; 64x48 10-bit RGBA ≥ 38 dB [41.8]; 33x17 RGB ≥ 31 dB [33.9] (the same gradients
/// squeezed into 33 pixels step by 8 levels per pixel, which 4:2:0 HEVC at q90 does not keep as well);
/// lossless (4:4:4, identity matrix) comes back exactly.
@Suite struct HEIFEncodeTests {
    static func canEncode() throws -> Bool {
        let can = try HEIFTest.host().coders.canEncode(format: "heic")
        if !can { try Skip.because("libheif has no HEVC encoder here; the coder does not claim encode", bootstrapProvides: true) }
        return can
    }

    /// Smooth gradients in every channel (alpha falls from 1 at the centre to 0.5 at the corners). A photograph-like
    /// picture: HEVC's 4:2:0 chroma smears hard saturated edges, which would measure the subsampling, not the coder.
    static func picture(width: Int, height: Int, sixteen: Bool = false, alpha: Bool = true) throws -> Image {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let u = Double(x) / Double(max(width - 1, 1)), v = Double(y) / Double(max(height - 1, 1))
                let radius = min(1, ((u - 0.5) * (u - 0.5) + (v - 0.5) * (v - 0.5)) * 2)
                let values = [u, v, 0.5 + 0.3 * cos(radius * .pi), alpha ? 1 - 0.5 * radius : 1]
                for value in values {
                    if sixteen {
                        let sample = UInt16((value * 65535).rounded())
                        bytes += withUnsafeBytes(of: sample) { Array($0) }
                    } else {
                        bytes.append(UInt8((value * 255).rounded()))
                    }
                }
            }
        }
        return try Image(width: width, height: height, pixelFormat: sixteen ? .rgba16 : .rgba8,
                         alphaMode: alpha ? .straight : .none, bytes: bytes)
    }

    @Test func roundTripAtQuality90() throws {
        guard try Self.canEncode() else { return }
        let original = try Self.picture(width: 96, height: 64)
        let encoded = try HEIFTest.host().coders.encode(original, format: "heic", options: EncodeOptions(quality: 90, speed: 9))
        #expect(try HEIFTest.host().coders.coder(forData: encoded)?.descriptor.id == HEIFTest.coderID)
        let decoded = try HEIFTest.decode(encoded)
        #expect((decoded.width, decoded.height, decoded.alphaMode) == (96, 64, .straight))
        let quality = ImageComparison.psnr(decoded, original)
        #expect(quality >= 40, "PSNR \(quality) dB")
        print("HEIC q90 96x64 RGBA: \(encoded.count) bytes, PSNR \(String(format: "%.1f", quality)) dB")
    }

    @Test func oddSizeWithoutAlpha() throws {
        guard try Self.canEncode() else { return }
        let original = try Self.picture(width: 33, height: 17, alpha: false)
        let encoded = try HEIFTest.host().coders.encode(original, format: "heic", options: EncodeOptions(quality: 90, speed: 9))
        let decoded = try HEIFTest.decode(encoded)
        #expect((decoded.width, decoded.height, decoded.alphaMode) == (33, 17, .none))
        let quality = ImageComparison.psnr(decoded, original)
        #expect(quality >= 31, "PSNR \(quality) dB")
        print("HEIC q90 33x17 RGB: \(encoded.count) bytes, PSNR \(String(format: "%.1f", quality)) dB")
    }

    @Test func losslessIsExact() throws {
        guard try Self.canEncode() else { return }
        let original = try Self.picture(width: 64, height: 48)
        let encoded = try HEIFTest.host().coders.encode(original, format: "heic", options: EncodeOptions(speed: 9, lossless: true))
        let decoded = try HEIFTest.decode(encoded)
        #expect(decoded.bytes == original.bytes, "PSNR \(ImageComparison.psnr(decoded, original)) dB")
    }

    @Test func tenBitRoundTrip() throws {
        guard try Self.canEncode() else { return }
        let original = try Self.picture(width: 64, height: 48, sixteen: true)
        let encoded = try HEIFTest.host().coders.encode(original, format: "heic", options: EncodeOptions(quality: 90, speed: 9))
        let info = try HEIFTest.probe(encoded)
        #expect(info.bitDepth == 10)
        let decoded = try HEIFTest.decode(encoded, DecodeOptions(highBitDepth: true))
        #expect(decoded.pixelFormat == .rgba16)
        let quality = ImageComparison.psnr(decoded, original)
        #expect(quality >= 38, "PSNR \(quality) dB")
        print("HEIC q90 64x48 10-bit RGBA: \(encoded.count) bytes, PSNR \(String(format: "%.1f", quality)) dB")
    }

    /// The reference decoder reads what the coder writes.
    @Test func heifConvertReadsTheOutput() throws {
        guard try Self.canEncode(), try HEIFTest.hasReferenceTools("heifConvertReadsTheOutput") else { return }
        let original = try Self.picture(width: 40, height: 30)
        let encoded = try HEIFTest.host().coders.encode(original, format: "heic", options: EncodeOptions(quality: 90, speed: 9))
        let folder = try TestPaths.temporaryDirectory("heif-encode")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestFiles.write(encoded, to: folder + "/out.heic")
        let reference = try #require(try HEIFTest.reference(folder + "/out.heic").first)
        let decoded = try HEIFTest.decode(encoded)
        #expect(SampleDifference(decoded, reference).maxChannel == 0)
    }

    @Test func unsupportedBitDepthIsRefused() throws {
        guard try Self.canEncode() else { return }
        let original = try Self.picture(width: 8, height: 8)
        do {
            _ = try HEIFTest.host().coders.encode(original, format: "heic", options: EncodeOptions(bitDepth: 16))
            Issue.record("16-bit HEIC was written")
        } catch {
            #expect(error.pluginStatus == .unsupported, "\(error)")
        }
    }
}
