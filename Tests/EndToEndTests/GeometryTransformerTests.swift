import Foundation
import PipelineHost
import Testing
import TestSupport

/// Rotate, flip, crop and grayscale against ImageMagick on the same decoded PNG: moves are exact, gray within 1.
@Suite("Transformers: geometry and grayscale")
struct GeometryTransformerTests {
    /// A 37x23 RGBA PNG (odd sizes catch off-by-one moves) and the host that decodes it.
    private static func fixture() throws -> (path: String, image: Image, folder: String)? {
        let convert = try Skip.unlessTool("convert")
        let folder = try TestPaths.temporaryDirectory("geometry")
        let path = folder + "/in.png"
        let made = try CommandLine.run(convert, ["-size", "37x23", "gradient:red-blue", "(", "-size", "37x23", "gradient:white-gray30",
                                                 "-rotate", "0", ")", "-alpha", "off", "-compose", "CopyOpacity", "-composite",
                                                 "-fill", "lime", "-draw", "point 3,2", "PNG32:" + path])
        guard made.status == 0 else { throw TestSupportError("convert: \(made.stderr)") }
        let host = try PluginSandbox.host(loading: ["libPNGCoder.so"])
        return (path, try host.coders.decode(data: try TestFiles.read(path)), folder)
    }

    private static func largestDifference(_ image: Image, _ reference: MagickRGBA) -> Int? {
        guard image.width == reference.width, image.height == reference.height else { return nil }
        return zip(image.bytes, reference.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    @Test("quarter turns, flips and crops move pixels exactly as ImageMagick's -rotate, -flop/-flip and -crop")
    func movesMatchImageMagick() throws {
        guard let (path, image, folder) = try Self.fixture() else { return }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cases: [(any ImageTransforming, [String])] = [
            (ImageTransformers.Rotate(.quarter), ["-rotate", "90"]),
            (ImageTransformers.Rotate(.half), ["-rotate", "180"]),
            (ImageTransformers.Rotate(.threeQuarters), ["-rotate", "270"]),
            (ImageTransformers.Flip(.horizontal), ["-flop"]),
            (ImageTransformers.Flip(.vertical), ["-flip"]),
            (ImageTransformers.Crop(x: 5, y: 3, width: 20, height: 11), ["-crop", "20x11+5+3", "+repage"]),
            (ImageTransformers.Crop(x: 30, y: 20, width: 50, height: 50), ["-crop", "50x50+30+20", "+repage"]),
        ]
        for (transformer, operations) in cases {
            let ours = try transformer.transform(image)
            let reference = try MagickRGBA.read(path, operations: operations)
            #expect(Self.largestDifference(ours, reference) == 0, "\(transformer.identifier): \(ours.width)x\(ours.height) vs \(reference.width)x\(reference.height)")
        }
        #expect(throws: PipelineError.self) { try ImageTransformers.Crop(x: 40, y: 0, width: 5, height: 5).transform(image) }
        // Four quarter turns are the identity; identifiers differ per parameter (cache keys).
        var turned = image
        for _ in 0..<4 { turned = try ImageTransformers.Rotate(.quarter).transform(turned) }
        #expect(turned.bytes == image.bytes)
        #expect(Set([ImageTransformers.Rotate(.quarter).identifier, ImageTransformers.Rotate(.half).identifier,
                     ImageTransformers.Flip(.horizontal).identifier, ImageTransformers.Flip(.vertical).identifier]).count == 4)
    }

    @Test("grayscale is Rec. 709 luma on encoded values, as ImageMagick's -grayscale Rec709Luma (within 1 level), alpha kept")
    func grayscaleMatchesImageMagick() throws {
        guard let (path, image, folder) = try Self.fixture() else { return }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let ours = try ImageTransformers.Grayscale().transform(image)
        let reference = try MagickRGBA.read(path, operations: ["-grayscale", "Rec709Luma"])
        let difference = try #require(Self.largestDifference(ours, reference))
        #expect(difference <= 1, "largest difference \(difference)")
        #expect(ours.pixel(x: 3, y: 2).r == ours.pixel(x: 3, y: 2).g && ours.pixel(x: 3, y: 2).a == image.pixel(x: 3, y: 2).a)
    }
}
