import Foundation
import PipelineHost
import Testing
import TestSupport

/// The built `imagepipe` binary, run as a user would: output, files written, exit statuses.
@Suite struct CLITests {
    let binary = TestPaths.imagepipeBinary

    private func run(_ arguments: [String], environment: [String: String]? = nil) throws -> ProcessResult {
        try CommandLine.run(binary, arguments, environment: environment)
    }

    @Test func codersJSONListsThePNGAndTemplateCodersWithCapabilities() throws {
        let result = try run(["coders", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let coders = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let byFormat = Dictionary(coders.map { ($0["format"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        let png = try #require(byFormat["png"])
        #expect(png["id"] as? String == "org.imagepipe.coder.png/1")
        let qoi = try #require(byFormat["qoi"])
        #expect(qoi["id"] as? String == "org.imagepipe.coder.qoi/1")
        let capabilities = try #require(png["capabilities"] as? Int)
        #expect(capabilities & 0b11 == 0b11, "png decodes and encodes")
    }

    @Test("an empty or relative --plugin-dir is a usage error: it would mean the current folder, which is never searched")
    func pluginDirMustBeAbsolute() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for value in ["", "relative/plugins", "."] {
            let result = try CommandLine.run(binary, ["coders", "--plugin-dir", value], currentDirectory: folder)
            #expect(result.status == 2 && result.stderr.contains("never searched"), "'\(value)': \(result.status) \(result.stderr)")
        }
    }

    @Test func pluginsExplainsEveryFileItSaw() throws {
        let folder = try TestPaths.temporaryDirectory()
        try Data("junk".utf8).write(to: URL(fileURLWithPath: folder + "/junk.so"))
        chmod(folder + "/junk.so", 0o644)
        let result = try run(["plugins", "--plugin-dir", folder])
        #expect(result.status == 0)
        #expect(result.stdout.contains("\(folder)  (--plugin-dir)"))
        #expect(result.stdout.contains("\(folder)/junk.so\n  refused   not an ELF file"))
        #expect(result.stdout.contains("libPNGCoder.so\n  loaded    org.imagepipe.png"))
    }

    @Test func templatePluginCopiedAloneAppearsInCodersAndDecodes() throws {
        // Given only the C template plugin in a fresh folder
        let folder = try PluginSandbox.directory(with: ["libTemplateCoder.so"])
        // When the CLI lists coders from that folder alone
        let result = try run(["coders", "--no-default-plugins", "--plugin-dir", folder])
        // Then the QOI coder is there, and nothing else
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.last?.hasPrefix("org.imagepipe.coder.qoi/1  qoi") == true)
        // And it decodes a QOI file this test writes
        let host = PluginHost(searchPath: PluginSearchPath(directories: [folder]))
        let image = try host.coders.decode(data: QOIWriter.rgba(width: 3, height: 2, pixels: [
            255, 0, 0, 255,  0, 255, 0, 255,  0, 0, 255, 255,
            9, 9, 9, 128,  9, 9, 9, 128,  200, 100, 50, 0,
        ]))
        #expect(image.width == 3 && image.height == 2)
        #expect(image.pixel(x: 1, y: 0) == RGBA16Pixel(r: 0, g: 255, b: 0, a: 255))
        #expect(image.pixel(x: 0, y: 1) == RGBA16Pixel(r: 9, g: 9, b: 9, a: 128))
    }

    @Test func renderWritesAPNGOfTheRequestedSize() throws {
        let folder = try TestPaths.temporaryDirectory()
        let source = folder + "/source.qoi", output = folder + "/out.png"
        var pixels: [UInt8] = []
        for y in 0..<80 { for x in 0..<120 { pixels += [UInt8(x * 2), UInt8(y * 3), 77, 255] } }
        try Data(QOIWriter.rgba(width: 120, height: 80, pixels: pixels)).write(to: URL(fileURLWithPath: source))
        let result = try run(["render", source, "--size", "60x60", "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        let info = try run(["info", output, "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        #expect(json["format"] as? String == "png")
        #expect(json["width"] as? Int == 60 && json["height"] as? Int == 40)
    }

    @Test(arguments: [
        (["render", "/nonexistent/in.png", "-o", "/tmp/x.png"], "no such file"),
        (["render", "/etc/hostname", "-o", "/tmp/x.png"], "unrecognised image format"),
        (["render", "/etc", "-o", "/tmp/x.png"], "is a directory"),
        (["render", "in.png"], "missing -o"),
        (["render", "in.png", "-o", "out.xyz"], "no coder can encode 'xyz'"),
        (["render", "in.png", "-o", "o.png", "--size", "abc"], "--size must be WxH"),
        (["render", "in.png", "-o", "o.png", "--tint", "nocolour"], "--tint must be"),
        (["frobnicate"], "unknown command"),
        (["coders", "--bogus"], "unknown option '--bogus'"),
    ])
    func badInputExitsNonZeroWithAOneLineMessage(arguments: [String], expected: String) throws {
        let result = try run(arguments)
        #expect(result.status != 0)
        #expect(result.stderr.contains(expected), "stderr was: \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func everyCommandHasHelp() throws {
        for command in ["plugins", "coders", "loaders", "caches", "info", "render"] {
            let result = try run([command, "--help"])
            #expect(result.status == 0)
            #expect(result.stdout.hasPrefix("Usage: imagepipe \(command)"))
        }
        #expect(try run(["--help"]).stdout.contains("Commands:"))
    }
}

/// Writes QOI files with QOI_OP_RGBA chunks only: simple, and independent of the plugin's own encoder.
enum QOIWriter {
    static func rgba(width: Int, height: Int, pixels: [UInt8]) -> [UInt8] {
        var out: [UInt8] = Array("qoif".utf8)
        for value in [UInt32(width), UInt32(height)] { out += withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        out += [4, 0]
        for i in stride(from: 0, to: pixels.count, by: 4) { out += [0xFF] + pixels[i..<(i + 4)] }
        return out + [0, 0, 0, 0, 0, 0, 0, 1]
    }
}
