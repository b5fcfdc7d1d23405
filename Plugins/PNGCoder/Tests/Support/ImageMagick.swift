import Foundation
import TestSupport

/// Makes PNG fixtures with ImageMagick's `convert` (Debian package imagemagick), the reference PNG writer for
/// the colour types and bit depths the project's own encoder does not produce (gray, palette, tRNS, 1-4 bits).
enum ImageMagick {
    /// Absolute path of `convert`, or nil when ImageMagick is not installed (tests then skip with a message).
    static var convert: String? { ReferenceTool.path("convert") }

    static let missingMessage = "ImageMagick's convert is not installed (apt-get install imagemagick); skipping"

    /// Writes `pattern` as a PAM file and converts it to PNG with `arguments` (e.g. `-define png:bit-depth=2`).
    static func png(from pattern: Pattern, _ arguments: [String]) throws -> [UInt8] {
        guard let convert else { throw FixtureError.toolMissing(missingMessage) }
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = folder + "/pattern.pam"
        let output = folder + "/fixture.png"
        try Data(pattern.pam).write(to: URL(fileURLWithPath: input))
        let result = try CommandLine.run(convert, [input] + arguments + [output])
        guard result.status == 0 else {
            throw FixtureError.toolFailed("convert \(arguments.joined(separator: " ")): \(result.stderr)")
        }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
    }
}

enum FixtureError: Error, CustomStringConvertible {
    case toolMissing(String)
    case toolFailed(String)

    var description: String {
        switch self {
        case .toolMissing(let message), .toolFailed(let message): message
        }
    }
}
