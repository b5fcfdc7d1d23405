import Foundation
import PipelineHost
import Testing
import TestSupport

/// Transparency in formats without alpha: composited onto a background (white unless asked), never left black.
@Suite("Background flattening")
struct BackgroundFlattenTests {
    @Test("Flatten matches ImageMagick's -background C -flatten on straight alpha, at 8 and 16 bits (tolerance 1 level)")
    func matchesImageMagick() throws {
        let convert = try Skip.unlessTool("convert")
        let folder = try TestPaths.temporaryDirectory("flatten")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Colour ramps across, alpha ramp down: every alpha from 0 to 255 over many colours.
        let made = try CommandLine.run(convert, ["-size", "64x64", "gradient:red-blue", "(", "-size", "64x64", "gradient:white-black",
                                                 ")", "-alpha", "off", "-compose", "CopyOpacity", "-composite", "-depth", "8",
                                                 "PNG32:" + folder + "/alpha.png"])
        guard made.status == 0 else { throw TestSupportError("convert: \(made.stderr)") }
        let host = try PluginSandbox.host(loading: ["libPNGCoder.so"])
        let background = try #require(RGBAColor(parsing: "#3366cc"))
        let data = try TestFiles.read(folder + "/alpha.png")
        let image = try host.coders.decode(data: data)
        #expect(image.alphaMode == .straight)
        let flat = try ImageTransformers.Flatten(background: background).transform(image)
        #expect(flat.alphaMode == .none)
        let reference = try MagickRGBA.read(folder + "/alpha.png", operations: ["-background", "#3366cc", "-flatten"])
        let ours = flat.bytes
        var worst = 0
        for i in 0..<ours.count where i % 4 != 3 { worst = max(worst, abs(Int(ours[i]) - Int(reference.bytes[i]))) }
        #expect(worst <= 1, "largest difference \(worst)")
        // The 16-bit path agrees with the 8-bit one (the same pixels widened, v × 257).
        let widened = image.bytes.flatMap { value -> [UInt8] in
            withUnsafeBytes(of: UInt16(value) * 257) { Array($0) }
        }
        let wide = try Image(width: image.width, height: image.height, pixelFormat: .rgba16, alphaMode: .straight, bytes: widened)
        let flatWide = try ImageTransformers.Flatten(background: background).transform(wide)
        #expect(flatWide.pixelFormat == .rgba16 && flatWide.alphaMode == .none)
        var worstWide = 0
        for y in 0..<flat.height {
            for x in 0..<flat.width {
                let narrow = flat.pixel(x: x, y: y), broad = flatWide.pixel(x: x, y: y)
                worstWide = max(worstWide, abs(Int(narrow.r) - Int((UInt32(broad.r) + 128) / 257)),
                                abs(Int(narrow.b) - Int((UInt32(broad.b) + 128) / 257)))
            }
        }
        #expect(worstWide <= 1, "8- and 16-bit flatten differ by \(worstWide)")
        #expect(ImageTransformers.Flatten(background: background).identifier == "flatten(#3366ccff)")
    }

    @Test("a transparent SVG saved as JPEG is white where it was transparent, or the --background colour; PNG keeps alpha")
    func jpegOfATransparentIcon() throws {
        let folder = try TestPaths.temporaryDirectory("flatten-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let icon = TestPaths.repositoryRoot + "/samples/icon.svg"
        let plugins = ["--plugin-dir", TestPaths.pluginsDirectory]
        let host = try PluginSandbox.host(loading: ["libJPEGCoder.so", "libPNGCoder.so"])
        for (extra, expected) in [([String](), (255, 255, 255)), (["--background", "#ff0000"], (255, 0, 0))] {
            let run = try CommandLine.run(TestPaths.imagepipeBinary, ["render", icon, "--size", "64x64", "-o", folder + "/icon.jpg"] + extra + plugins)
            #expect(run.status == 0, "\(run.stderr)")
            let corner = try host.coders.decode(data: try TestFiles.read(folder + "/icon.jpg")).pixel(x: 1, y: 1)
            #expect(abs(Int(corner.r) - expected.0) <= 3 && abs(Int(corner.g) - expected.1) <= 3 && abs(Int(corner.b) - expected.2) <= 3,
                    "\(extra): corner \(corner)")
        }
        let png = try CommandLine.run(TestPaths.imagepipeBinary, ["render", icon, "--size", "64x64", "-o", folder + "/icon.png",
                                                                  "--background", "#ff0000"] + plugins)
        #expect(png.status == 0)
        #expect(try host.coders.decode(data: try TestFiles.read(folder + "/icon.png")).pixel(x: 1, y: 1).a == 0)
        let bad = try CommandLine.run(TestPaths.imagepipeBinary, ["render", icon, "-o", folder + "/x.jpg", "--background", "nope"] + plugins)
        #expect(bad.status == 2 && bad.stderr.contains("--background"), "\(bad.stderr)")
    }
}
