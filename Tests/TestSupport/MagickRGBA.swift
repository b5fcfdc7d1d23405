import Foundation

/// An image file's pixels as ImageMagick's `convert` reads them, as raw RGBA at 8 or 16 bits a sample.
///
/// Several plugins compare against a reference tool that writes PNG (avifdec, heif-convert, pdftocairo,
/// rsvg-convert, dwebp's inputs); this is the one way their tests turn such a file into samples.
public struct MagickRGBA: Sendable {
    public let width: Int
    public let height: Int
    /// 8 or 16.
    public let depth: Int
    /// What `convert` wrote: width * height * 4 samples, R G B A, row by row; 16-bit samples big-endian.
    public let bytes: [UInt8]

    /// The samples as numbers (0...255 or 0...65535).
    public var samples: [UInt16] {
        depth == 8
            ? bytes.map { UInt16($0) }
            : stride(from: 0, to: bytes.count - 1, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
    }

    /// The real ImageMagick (verified by what it prints, so that a stand-in earlier on PATH cannot change the
    /// bytes); nil when it is not installed.
    public static var convert: String? { ReferenceTool.path("convert") }

    /// `convert <path> <operations> -depth <depth> -endian MSB rgba:-`-style read (through a temporary file), with
    /// the size from `convert <path> <operations> -format "%w %h" info:`. `operations` are applied first, e.g.
    /// ["-rotate", "90"] or ["-alpha", "on"].
    public static func read(_ path: String, depth: Int = 8, operations: [String] = []) throws -> MagickRGBA {
        guard let convert else { throw TestSupportError("ImageMagick's convert is not installed (apt-get install imagemagick)") }
        let size = try CommandLine.run(convert, [path] + operations + ["-format", "%w %h", "info:"])
        let parts = size.stdout.split(separator: " ").compactMap { Int($0) }
        guard size.status == 0, parts.count == 2 else { throw TestSupportError("convert \(path) info: \(size.stderr)") }
        let folder = try TestPaths.temporaryDirectory("magick-rgba")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let raw = folder + "/out.rgba"
        let run = try CommandLine.run(
            convert, [path] + operations + ["-depth", String(depth), "-endian", "MSB", "rgba:" + raw])
        guard run.status == 0 else { throw TestSupportError("convert \(path): \(run.stderr)") }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        guard bytes.count == parts[0] * parts[1] * 4 * depth / 8 else {
            throw TestSupportError("convert gave \(bytes.count) bytes for \(parts[0])x\(parts[1]) at \(depth) bits")
        }
        return MagickRGBA(width: parts[0], height: parts[1], depth: depth, bytes: bytes)
    }
}
