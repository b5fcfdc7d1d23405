import Foundation
import PipelineHost
import Testing
import TestSupport

/// Smart crop and focal points: the window `CropFocus` picks, against the one `vips smartcrop` picks on the same
/// files (libvips' attention and entropy strategies, which these follow), and the focal point's plain geometry.
@Suite struct CropFocusTests {
    /// Generated photos-like images: plasma (a seeded fractal, ImageMagick's), some with a skin-toned face-sized disc
    /// or a saturated patch placed off-centre, some with a detailed corner on a smooth field.
    private static let scenes: [(name: String, size: String, draw: [String])] = [
        ("plasma-disc-right", "400x300", ["-fill", "#d9a07a", "-draw", "circle 330,120 370,150"]),
        ("plasma-disc-left", "300x400", ["-fill", "#c68c6a", "-draw", "circle 60,300 95,330"]),
        ("plasma-red-top", "480x270", ["-fill", "#ff1010", "-draw", "rectangle 200,10 260,60"]),
        ("plasma", "400x300", []),
        ("plasma-disc-bottom", "360x360", ["-fill", "#e0ac88", "-draw", "circle 180,300 210,330"]),
        ("plasma-blue-corner", "500x250", ["-fill", "#1030ff", "-draw", "rectangle 420,170 490,240"]),
    ]
    private static let windows = [(150, 150), (120, 250), (300, 100)]

    private static func scenePath(_ scene: (name: String, size: String, draw: [String]), seed: Int, in folder: String) throws -> String {
        let convert = try #require(ReferenceTool.path("convert"))
        let path = folder + "/\(scene.name)-\(seed).png"
        // A smooth grey field with plasma detail in it, then the scene's object.
        let made = try CommandLine.run(convert, ["-seed", String(seed), "-size", scene.size, "plasma:grey40-grey60", "-blur", "0x2"]
                                       + scene.draw + ["-depth", "8", "PNG24:" + path])
        try #require(made.status == 0, "convert: \(made.stderr)")
        return path
    }

    /// vips' window for the same file: the crop's offsets, which `vips smartcrop` records in a .v file's header.
    private static func vipsOrigin(_ path: String, _ w: Int, _ h: Int, interesting: String, folder: String) throws -> (Int, Int) {
        let vips = try #require(ReferenceTool.path("vips"))
        let out = folder + "/crop.v"
        let run = try CommandLine.run(vips, ["smartcrop", path, out, String(w), String(h), "--interesting", interesting])
        try #require(run.status == 0, "vips smartcrop: \(run.stderr)")
        let header = try #require(ReferenceTool.path("vipsheader"))
        // One vipsheader run for both offsets ("xoffset: -12" lines).
        let result = try CommandLine.run(header, ["-a", out])
        func field(_ name: String) throws -> Int {
            let line = result.stdout.split(separator: "\n").first { $0.hasPrefix(name + ":") }
            return try #require(line.flatMap { Int($0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)) },
                                "vipsheader \(name): \(result.stdout)")
        }
        return (-(try field("xoffset")), -(try field("yoffset")))
    }

    private static func intersectionOverUnion(_ a: (Int, Int), _ b: (Int, Int), _ w: Int, _ h: Int) -> Double {
        let ix = max(0, min(a.0, b.0) + w - max(a.0, b.0)), iy = max(0, min(a.1, b.1) + h - max(a.1, b.1))
        let intersection = Double(ix * iy)
        return intersection / (2 * Double(w * h) - intersection)
    }

    @Test("attention and entropy choose windows that overlap vips smartcrop's (IoU >= 0.5) on at least 80 % of 36 crops each")
    func agreesWithVips() throws {
        for tool in ["vips", "vipsheader", "convert"] { try Skip.unlessTool(tool) }
        let folder = try TestPaths.temporaryDirectory("crop-focus")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let coders = try PluginSandbox.host(loading: ["libPNGCoder.so"]).coders
        for (strategy, name) in [(CropFocus.attention, "attention"), (.entropy, "entropy")] {
            var agreeing = 0, total = 0
            var report: [String] = []
            for (index, scene) in Self.scenes.enumerated() {
                for seed in [index + 1, index + 11] {
                    let path = try Self.scenePath(scene, seed: seed, in: folder)
                    let image = try coders.decode(data: try TestFiles.read(path))
                    for (w, h) in Self.windows where w < image.width || h < image.height {
                        let ww = min(w, image.width), hh = min(h, image.height)
                        let ours = try strategy.origin(of: ww, hh, in: image)
                        let theirs = try Self.vipsOrigin(path, ww, hh, interesting: name, folder: folder)
                        let iou = Self.intersectionOverUnion(ours, theirs, ww, hh)
                        total += 1
                        if iou >= 0.5 { agreeing += 1 } else { report.append("\(scene.name)-\(seed) \(ww)x\(hh): ours \(ours) vips \(theirs)") }
                    }
                }
            }
            #expect(total == 36)
            #expect(Double(agreeing) >= 0.8 * Double(total), "\(name): \(agreeing)/\(total) agree; \(report.joined(separator: "; "))")
            print("CropFocus \(name): \(agreeing)/\(total) windows with IoU >= 0.5 against vips smartcrop")
        }
    }

    @Test(.requiresCorpus) func agreesWithVipsOnCorpusPhotos() throws {
        let corpus = try Skip.unlessCorpus()
        for tool in ["vips", "vipsheader"] { try Skip.unlessTool(tool) }
        let folder = try TestPaths.temporaryDirectory("crop-focus-corpus")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let coders = try PluginSandbox.host(loading: ["libPNGCoder.so", "libAVIFCoder.so", "libHEIFCoder.so", "libJXLCoder.so", "libTIFFCoder.so"]).coders
        // Opaque 8-bit stills of photo size (over 1300 px left out for the suite's time), decoded by us and handed to vips as
        // the same pixels (a PNG), so the strategies are compared and not the decoders.
        let rows = try CorpusManifest.testRows(in: corpus).filter { row in
            row.outcome == "ok" && ["avif", "heif", "jxl", "tiff"].contains(row.format) && row.bitDepth == 8 && row.hasAlpha == false
                && row.framesOrPages == 1 && (row.width ?? 0) >= 400 && (row.height ?? 0) >= 300 && (row.width ?? 0) <= 1300 && (row.height ?? 0) <= 1300
        }.prefix(14)
        for (strategy, name) in [(CropFocus.attention, "attention"), (.entropy, "entropy")] {
            var agreeing = 0, total = 0
            var report: [String] = []
            for row in rows {
                guard let image = try? coders.decode(data: try TestFiles.read(corpus + "/" + row.path)) else { continue }
                let path = folder + "/photo.png"
                try TestFiles.write(try coders.encode(image, format: "png"), to: path)
                let short = min(image.width, image.height)
                for (w, h) in [(short / 2, short / 2), (image.width * 4 / 5, image.height / 3), (image.width / 3, image.height * 4 / 5)] {
                    let ours = try strategy.origin(of: w, h, in: image)
                    let theirs = try Self.vipsOrigin(path, w, h, interesting: name, folder: folder)
                    let iou = Self.intersectionOverUnion(ours, theirs, w, h)
                    total += 1
                    if iou >= 0.5 { agreeing += 1 } else { report.append("\(row.path) \(w)x\(h): ours \(ours) vips \(theirs)") }
                }
            }
            #expect(total >= 30, "\(total) crops")
            #expect(Double(agreeing) >= 0.75 * Double(total), "\(name): \(agreeing)/\(total) agree; \(report.joined(separator: "; "))")
            print("CropFocus \(name) on corpus photos: \(agreeing)/\(total) windows with IoU >= 0.5 against vips smartcrop; \(report.joined(separator: "; "))")
        }
    }

    @Test("attention finds an off-centre face-toned disc on a flat field; a focal point centres the window, clamped to the image")
    func findsTheSubjectAndClampsThePoint() throws {
        var pixels = [UInt8](repeating: 0, count: 300 * 200 * 4)
        for y in 0..<200 {
            for x in 0..<300 {
                let inDisc = (x - 250) * (x - 250) + (y - 60) * (y - 60) < 25 * 25
                let i = (y * 300 + x) * 4
                pixels[i..<i + 4] = inDisc ? [0xd9, 0xa0, 0x7a, 255] : [120, 120, 120, 255]
            }
        }
        let image = try Image(width: 300, height: 200, bytes: pixels)
        let (x, y) = try CropFocus.attention.origin(of: 100, 100, in: image)
        #expect(x <= 225 && x + 100 >= 275 && y <= 35 && y + 100 >= 85, "window at (\(x), \(y)) misses the disc at (250, 60)")
        #expect(try CropFocus.point(x: 0.5, y: 0.5).origin(of: 100, 100, in: image) == (100, 50))
        #expect(try CropFocus.point(x: 1, y: 0).origin(of: 100, 100, in: image) == (200, 0))
        #expect(try CropFocus.point(x: 0.1, y: 0.9).origin(of: 100, 50, in: image) == (0, 150))
        #expect(try CropFocus.attention.origin(of: 300, 200, in: image) == (0, 0))
    }

    @Test("the focus is part of the result's identity; parsing accepts the strategies and fractions only")
    func keysAndParsing() throws {
        #expect(CropFocus.smart == .attention, "the library's name for g:sm")
        var options = DecodeOptions(thumbnailSize: PixelSize(width: 10, height: 10), scaleMode: .aspectFill)
        let plain = options.resultKeyTerms
        options.focus = .attention
        let smart = options.resultKeyTerms
        options.focus = .point(x: 0.25, y: 0.75)
        #expect(Set([plain, smart, options.resultKeyTerms]).count == 3)
        #expect(options.resultKeyTerms.last == "focus=0.25,0.75")
        #expect(CropFocus(parsing: "smart") == .attention && CropFocus(parsing: "entropy") == .entropy)
        #expect(CropFocus(parsing: "0.3,1") == .point(x: 0.3, y: 1))
        #expect(CropFocus(parsing: "1.5,0") == nil && CropFocus(parsing: "0.5") == nil && CropFocus(parsing: "up") == nil)
        #expect(ImageTransformers.Crop(size: PixelSize(width: 4, height: 4), focus: .entropy).key
                != ImageTransformers.Crop(size: PixelSize(width: 4, height: 4)).key)
    }
}
