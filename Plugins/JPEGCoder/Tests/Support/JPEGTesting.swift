import Foundation
import PipelineHost
import Testing
import TestSupport

/// Shared setup of the JPEG plugin tests: the sandboxed host, the reference tools, status helpers.
enum JPEGTesting {
    static let coderID = "org.imagepipe.coder.jpeg/1"

    /// The coders of a host that loaded only libJPEGCoder.so (from plugins.d, copied into a fresh folder).
    static func coders() throws -> CodersManager {
        try PluginSandbox.host(loading: ["libJPEGCoder.so"]).coders
    }

    /// The status a decode failed with, or nil when it succeeded.
    static func decodeStatus(_ data: [UInt8], _ options: DecodeOptions = DecodeOptions(),
                             coders: CodersManager? = nil) throws -> PluginStatus? {
        let coders = try coders ?? Self.coders()
        return failureStatus { _ = try coders.decode(data: data, options: options) }
    }

    /// Decodes and returns the image as a tightly packed RGB raster (alpha must be opaque).
    static func decodeRGB(_ data: [UInt8], _ options: DecodeOptions = DecodeOptions(),
                          coders: CodersManager? = nil) throws -> Raster {
        let image = try (coders ?? Self.coders()).decode(data: data, options: options)
        #expect(image.pixelFormat == .rgba8)
        #expect(image.alphaMode == .none)
        return Raster(image)
    }
}

/// The Debian reference tools the tests compare against. Tests skip with a message when one is missing.
enum Tools {
    /// libjpeg-turbo-progs: the same library's own command-line tools.
    static var hasLibjpegProgs: Bool { CommandLine.hasTool("cjpeg") && CommandLine.hasTool("djpeg") }
    static let libjpegProgsMissing =
        "cjpeg/djpeg are not installed (apt-get install libjpeg-turbo-progs; the lead adds it to scripts/bootstrap); skipping"
    static var hasImageMagick: Bool { CommandLine.hasTool("convert") && CommandLine.hasTool("identify") }
    static let imageMagickMissing = "ImageMagick's convert is not installed (apt-get install imagemagick); skipping"
    static var hasCC: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/cc") }

    /// Runs a shell command in a fresh temporary folder holding `files`, and returns the bytes of `output`.
    static func run(_ command: String, files: [String: [UInt8]] = [:], output: String) throws -> [UInt8] {
        let folder = try TestPaths.temporaryDirectory("imagepipe-jpeg")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (name, bytes) in files { try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name)) }
        let result = try CommandLine.shell("cd '\(folder)' && \(command)")
        guard result.status == 0 else { throw TestSupportError("`\(command)` failed: \(result.stderr)") }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + output)))
    }

    /// The shell's stdout of a command run on `files` in a fresh folder (for `identify`).
    static func output(_ command: String, files: [String: [UInt8]]) throws -> String {
        let folder = try TestPaths.temporaryDirectory("imagepipe-jpeg")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (name, bytes) in files { try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name)) }
        let result = try CommandLine.shell("cd '\(folder)' && \(command)")
        guard result.status == 0 else { throw TestSupportError("`\(command)` failed: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `cjpeg <arguments>` of a PPM/PGM.
    static func cjpeg(_ input: Raster, _ arguments: String = "") throws -> [UInt8] {
        try run("cjpeg \(arguments) -outfile out.jpg in.pnm", files: ["in.pnm": input.pnm], output: "out.jpg")
    }

    /// `djpeg -pnm <arguments>`: the reference decode.
    static func djpeg(_ jpeg: [UInt8], _ arguments: String = "") throws -> Raster {
        try Raster(pnm: run("djpeg -pnm \(arguments) -outfile out.pnm in.jpg", files: ["in.jpg": jpeg], output: "out.pnm"))
    }

    /// `convert in.pnm <arguments> out.jpg`.
    static func convertToJPEG(_ input: Raster, _ arguments: String) throws -> [UInt8] {
        try run("convert in.pnm \(arguments) out.jpg", files: ["in.pnm": input.pnm], output: "out.jpg")
    }

    /// ImageMagick's decode of a JPEG as RGB (`<arguments>` applied first, e.g. `-colorspace sRGB`).
    static func convertToRGB(_ jpeg: [UInt8], _ arguments: String = "") throws -> Raster {
        try Raster(pnm: run("convert in.jpg \(arguments) -depth 8 ppm:out.ppm", files: ["in.jpg": jpeg], output: "out.ppm"))
    }
}
