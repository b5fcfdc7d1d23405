import Foundation
import PipelineHost
import Testing
import TestSupport

/// CMYK pages with a CMYK profile convert through it as vips does (perceptual, black-point compensation, the JPEG
/// coder's rule); without one, naively, as before.
@Suite("TIFF CMYK")
struct TIFFCMYKTests {
    @Test("CMYK (and CMYK + alpha) through the embedded profile matches vips icc_transform within ΔE00 1 on average", arguments: [false, true])
    func throughTheProfile(alpha: Bool) throws {
        let convert = try Skip.unlessTool("convert"), vips = try Skip.unlessTool("vips")
        let folder = try TestPaths.temporaryDirectory("tiff-cmyk")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var picture = ["-size", "96x64", "-seed", "7", "plasma:fractal", "-depth", "8"]
        if alpha { picture += ["-alpha", "set", "-channel", "A", "-evaluate", "set", "50%", "+channel"] }
        let made = try CommandLine.run(convert, picture + [folder + "/rgb.tif"])
        try #require(made.status == 0, "\(made.stderr)")
        // vips's own CMYK profile, embedded by the transform.
        let cmyk = try CommandLine.run(vips, ["icc_transform", folder + "/rgb.tif", folder + "/cmyk.tif", "cmyk"])
        try #require(cmyk.status == 0, "\(cmyk.stderr)")
        let reference = try CommandLine.run(vips, ["icc_transform", folder + "/cmyk.tif", folder + "/reference.png", "srgb", "--embedded",
                                                   "--intent", "perceptual", "--black-point-compensation"])
        try #require(reference.status == 0, "\(reference.stderr)")
        let coders = try PluginSandbox.host(loading: ["libTIFFCoder.so"]).coders
        let bytes = try TestFiles.read(folder + "/cmyk.tif")
        let info = try coders.probe(data: bytes)
        #expect(info.details.contains("CMYK through its ICC profile"), "\(info.details)")
        #expect(info.hasAlpha == alpha)
        let image = try coders.decode(data: bytes)
        #expect(image.alphaMode == (alpha ? .straight : .none))
        let expected = try MagickRGBA.read(folder + "/reference.png").bytes
        let colour = { (rgba: [UInt8]) in rgba.enumerated().map { $0.offset % 4 == 3 ? 255 : $0.element } }
        let difference = ColorDifference.deltaE2000(colour(image.bytes), colour(expected))
        #expect(difference.mean <= 1 && difference.max <= 3, "ΔE00 mean \(difference.mean), max \(difference.max)")
        if alpha {
            let alphas = stride(from: 3, to: image.bytes.count, by: 4).map { image.bytes[$0] }
            #expect(alphas.allSatisfy { abs(Int($0) - 128) <= 1 }, "alpha is copied through")
        }
        // Without its profile the same page is converted naively, and says so.
        let stripped = try CommandLine.run(vips, ["tiffsave", folder + "/cmyk.tif", folder + "/bare.tif", "--strip"])
        try #require(stripped.status == 0, "\(stripped.stderr)")
        let bare = try coders.probe(data: try TestFiles.read(folder + "/bare.tif"))
        #expect(bare.details.contains("CMYK converted naively"), "\(bare.details)")
    }
}
