import Foundation
import PipelineHost
import Testing
import TestSupport

/// Shared setup, reference tools and pixel comparisons of the WebP plugin tests.
enum WebPTesting {
    static let coderID = "org.imagepipe.coder.webp/1"
    static let library = "libWebPCoder.so"

    /// The coders of a host that loaded only libWebPCoder.so.
    static func coders() throws -> CodersManager {
        try PluginSandbox.host(loading: [library]).coders
    }

    /// Debian's `webp` package (cwebp, dwebp, img2webp, webpmux, gif2webp) and ImageMagick's convert.
    static let tools = ["cwebp", "dwebp", "img2webp", "webpmux", "gif2webp", "convert"]
    static var hasTools: Bool { tools.allSatisfy { CommandLine.hasTool($0) } }
    static let missing = "skipping: needs the webp tools and ImageMagick (apt-get install webp imagemagick)"

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A fresh folder with the test inputs every suite uses, made by ImageMagick:
    /// rose.png (70x46 opaque photo), photo.png (640x480 plasma), alpha.png (96x64 gradient with a soft alpha ramp),
    /// f1/f2/f3.png (64x48 animation frames: gradient, transparent circle, plasma).
    static func workspace() throws -> String {
        let folder = try TestPaths.temporaryDirectory("imagepipe-webp")
        try run("""
            convert rose: -depth 8 rose.png && \
            convert -size 640x480 -seed 7 plasma:fractal -depth 8 photo.png && \
            convert -size 96x64 gradient:yellow-navy \\( -size 64x96 gradient:white-none -rotate 90 \\) \
                -alpha off -compose CopyOpacity -composite -depth 8 alpha.png && \
            convert -size 64x48 gradient:red-blue -depth 8 f1.png && \
            convert -size 64x48 xc:none -fill green -draw 'circle 32,24 32,10' -depth 8 f2.png && \
            convert -size 64x48 -seed 2 plasma:fractal -depth 8 f3.png
            """, in: folder)
        return folder
    }

    @discardableResult
    static func run(_ command: String, in folder: String) throws -> String {
        let result = try CommandLine.shell("cd '\(folder)' && \(command)")
        guard result.status == 0 else { throw Failure(description: "\(command): \(result.stderr)") }
        return result.stdout + result.stderr
    }

    /// Pixels as tightly packed RGBA8 with their size.
    struct Pixels {
        var width: Int
        var height: Int
        var bytes: [UInt8]
    }

    /// dwebp's decode of `file` (a still WebP), read from a PAM file (RGBA, straight alpha).
    static func dwebp(_ file: String, in folder: String, arguments: String = "") throws -> Pixels {
        try run("dwebp -quiet \(arguments) '\(file)' -pam -o dwebp.pam", in: folder)
        return try pam(folder + "/dwebp.pam")
    }

    /// A PNG's pixels, as ImageMagick reads them.
    static func png(_ file: String, in folder: String) throws -> Pixels {
        let image = try MagickRGBA.read(file.hasPrefix("/") ? file : folder + "/" + file)
        return Pixels(width: image.width, height: image.height, bytes: image.bytes)
    }

    static func pam(_ path: String) throws -> Pixels {
        let data = try TestFiles.read(path)
        guard let end = findHeaderEnd(data) else { throw Failure(description: "not a PAM file: \(path)") }
        let header = String(decoding: data[..<end], as: UTF8.self)
        var fields: [String: String] = [:]
        for line in header.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        guard let width = fields["WIDTH"].flatMap({ Int($0) }), let height = fields["HEIGHT"].flatMap({ Int($0) }),
              fields["DEPTH"] == "4" else { throw Failure(description: "unexpected PAM header: \(header)") }
        return Pixels(width: width, height: height, bytes: Array(data[(end + "ENDHDR\n".utf8.count)...]))
    }

    private static func findHeaderEnd(_ data: [UInt8]) -> Int? {
        let marker = Array("ENDHDR\n".utf8)
        guard data.count >= marker.count else { return nil }
        for i in 0...(data.count - marker.count) where Array(data[i..<(i + marker.count)]) == marker { return i }
        return nil
    }

    /// Differences between two RGBA8 buffers; pixels transparent in both are equal whatever their colour.
    struct Difference: CustomStringConvertible {
        var maxChannel = 0
        var meanChannel = 0.0
        var pixelsOverTolerance = 0
        var first: String?
        var description: String {
            "max \(maxChannel), mean \(String(format: "%.3f", meanChannel)), \(pixelsOverTolerance) pixels over tolerance"
                + (first.map { "; first at \($0)" } ?? "")
        }
    }

    static func compare(_ ours: [UInt8], _ theirs: [UInt8], width: Int, tolerance: Int = 0) -> Difference {
        var result = Difference()
        guard ours.count == theirs.count else {
            result.pixelsOverTolerance = Int.max
            result.first = "sizes differ: \(ours.count) vs \(theirs.count) bytes"
            return result
        }
        var total = 0
        for i in stride(from: 0, to: ours.count, by: 4) {
            if ours[i + 3] == 0 && theirs[i + 3] == 0 { continue }
            var worst = 0
            for c in 0..<4 {
                let d = abs(Int(ours[i + c]) - Int(theirs[i + c]))
                worst = max(worst, d)
                total += d
            }
            result.maxChannel = max(result.maxChannel, worst)
            if worst > tolerance {
                result.pixelsOverTolerance += 1
                if result.first == nil {
                    result.first = "(\(i / 4 % width), \(i / 4 / width)): \(Array(ours[i..<(i + 4)])) vs \(Array(theirs[i..<(i + 4)]))"
                }
            }
        }
        result.meanChannel = ours.isEmpty ? 0 : Double(total) / Double(ours.count)
        return result
    }
}
