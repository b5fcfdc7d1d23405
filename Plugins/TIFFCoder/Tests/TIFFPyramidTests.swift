import Foundation
import PipelineHost
import Testing
import TestSupport

/// Pyramids as shrink-on-load: a thumbnail decodes the smallest reduced-resolution copy that covers it, from an
/// overview chain or from SubIFDs, with the page's orientation; a full decode and the page count ignore the copies.
@Suite("TIFF pyramids")
struct TIFFPyramidTests {
    static func coders() throws -> CodersManager { try PluginSandbox.host(loading: ["libTIFFCoder.so"]).coders }

    /// A 1600×1200 plasma saved by vips as a tiled pyramid, `layout` "--pyramid" (overview chain) or
    /// "--pyramid --subifd".
    static func pyramid(_ layout: [String], folder: String) throws -> [UInt8] {
        let convert = try Skip.unlessTool("convert"), vips = try Skip.unlessTool("vips")
        let made = try CommandLine.run(convert, ["-size", "1600x1200", "-seed", "2", "plasma:fractal", "-depth", "8", folder + "/big.png"])
        try #require(made.status == 0, "\(made.stderr)")
        let saved = try CommandLine.run(vips, ["tiffsave", folder + "/big.png", folder + "/pyramid.tif", "--tile", "--compression", "deflate"] + layout)
        try #require(saved.status == 0, "\(saved.stderr)")
        return try TestFiles.read(folder + "/pyramid.tif")
    }

    @Test("vips pyramids (overview chain and SubIFDs): one page, the copies listed, a thumbnail from the right copy", arguments: [
        ["--pyramid"], ["--pyramid", "--subifd"],
    ])
    func vipsPyramids(_ layout: [String]) throws {
        let folder = try TestPaths.temporaryDirectory("tiff-pyramid")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try Self.pyramid(layout, folder: folder)
        let coders = try Self.coders()
        let info = try coders.probe(data: bytes)
        #expect((info.width, info.height, info.pageCount) == (1600, 1200, 1))
        #expect(info.details.contains("reduced copies 800x600,400x300,200x150,100x75"), "\(info.details)")
        let box = PixelSize(width: 150, height: 150)
        let options = DecodeOptions(thumbnailSize: box)
        // 150 px wide needs the 200×150 copy (the 100×75 one would be upscaled).
        #expect(try coders.probe(data: bytes, options: options).details.contains("at 150x150: reduced copy 200x150"))
        let fromCopy = try coders.decode(data: bytes, options: options)
        #expect((fromCopy.width, fromCopy.height) == (150, 113))
        // The same thumbnail from the full page: the copies are box-filtered by vips, so they differ only slightly.
        let full = try coders.decode(data: bytes)
        #expect((full.width, full.height) == (1600, 1200))
        let fromPage = try ImageTransformers.Resize.resample(full, to: box, mode: .fit)
        #expect((fromPage.width, fromPage.height) == (150, 113))
        var squared = 0.0
        for (a, b) in zip(fromCopy.bytes, fromPage.bytes) {
            let difference = Double(Int(a) - Int(b))
            squared += difference * difference
        }
        let meanSquared = max(squared / Double(fromCopy.bytes.count), 1e-9)
        let psnr = 10 * log10(65025 / meanSquared)
        #expect(psnr >= 30, "PSNR \(psnr) dB between the copy's thumbnail and the page's")
        // Large enough for no copy: the page itself.
        #expect(try coders.probe(data: bytes, options: DecodeOptions(thumbnailSize: PixelSize(width: 1000, height: 1000)))
            .details.contains("at 1000x1000: full page"))
    }

    /// A copy whose pixels differ from its page (solid red) proves which one a decode read; the page's orientation
    /// (6) applies to a copy that has no Orientation tag of its own.
    @Test("a thumbnail reads the copy, a full decode the page, both turned by the page's orientation")
    func theCopyIsWhatAThumbnailReads() throws {
        let convert = try Skip.unlessTool("convert"), tiffcp = try Skip.unlessTool("tiffcp"), tiffset = try Skip.unlessTool("tiffset")
        let folder = try TestPaths.temporaryDirectory("tiff-pyramid-copy")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (arguments, name) in [(["-size", "400x300", "gradient:blue-green"], "page.tif"), (["-size", "100x75", "xc:red"], "small.tif")] {
            let made = try CommandLine.run(convert, arguments + ["-depth", "8", folder + "/" + name])
            try #require(made.status == 0, "\(made.stderr)")
        }
        let joined = try CommandLine.run(tiffcp, ["-c", "lzw", folder + "/page.tif", folder + "/small.tif", folder + "/two.tif"])
        try #require(joined.status == 0, "\(joined.stderr)")
        for (directory, tag, value) in [("1", "254", "1"), ("0", "274", "6")] {
            let set = try CommandLine.run(tiffset, ["-d", directory, "-s", tag, value, folder + "/two.tif"])
            try #require(set.status == 0, "\(set.stderr)")
        }
        let bytes = try TestFiles.read(folder + "/two.tif")
        let coders = try Self.coders()
        let info = try coders.probe(data: bytes)
        #expect((info.width, info.height, info.pageCount) == (300, 400, 1), "\(info.details)")
        let thumbnail = try coders.decode(data: bytes, options: DecodeOptions(thumbnailSize: PixelSize(width: 50, height: 50)))
        #expect((thumbnail.width, thumbnail.height) == (38, 50))
        #expect(thumbnail.rgba(19, 25) == [255, 0, 0, 255], "the thumbnail did not come from the copy")
        let page = try coders.decode(data: bytes)
        #expect((page.width, page.height) == (300, 400))
        #expect(page.rgba(150, 200)[0] < 50, "the full decode read the copy")
        // Ignoring the orientation: the stored layout, from the copy as well.
        let stored = try coders.decode(data: bytes, options: DecodeOptions(thumbnailSize: PixelSize(width: 50, height: 50), ignoreOrientation: true))
        #expect((stored.width, stored.height) == (50, 38))
    }
}
