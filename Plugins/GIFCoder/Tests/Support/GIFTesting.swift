import Foundation
import PipelineHost
import Testing
import TestSupport

/// Shared setup and checks of the GIF plugin tests.
enum GIFTesting {
    static let coderID = "org.imagepipe.coder.gif/1"

    /// The coders of a host that loaded only libGIFCoder.so (from plugins.d, copied into a fresh folder).
    static func coders() throws -> CodersManager {
        try PluginSandbox.host(loading: ["libGIFCoder.so"]).coders
    }

    /// The palette the hand-written test files use, one letter per colour (`.` is transparent in pictures).
    static let letters: [(Character, (UInt8, UInt8, UInt8))] = [
        ("R", (255, 0, 0)), ("G", (0, 255, 0)), ("B", (0, 0, 255)), ("W", (255, 255, 255)),
        ("K", (0, 0, 0)), ("Y", (255, 255, 0)), ("C", (0, 255, 255)), ("M", (255, 0, 255)),
    ]
    static var palette: GIFWriter.Palette { letters.map(\.1) }

    static func index(of letter: Character) -> UInt8 {
        UInt8(letters.firstIndex { $0.0 == letter }!)
    }

    /// Palette indices for a picture written as rows of letters.
    static func indices(_ rows: [String]) -> [UInt8] {
        rows.flatMap { $0.map(index(of:)) }
    }

    /// An image as rows of letters: `.` for alpha 0, `?` for a colour not in the palette or partial alpha.
    static func picture(_ image: Image) -> [String] {
        (0..<image.height).map { y in
            String((0..<image.width).map { x -> Character in
                let p = image.pixel(x: x, y: y)
                if p.a == 0 { return "." }
                guard p.a == 255 else { return "?" }
                return letters.first { $0.1 == (UInt8(p.r), UInt8(p.g), UInt8(p.b)) }?.0 ?? "?"
            })
        }
    }

    /// Writes `bytes` to a temporary file and returns its path (for reference tools).
    static func temporaryFile(_ bytes: [UInt8], name: String) throws -> (folder: String, path: String) {
        let folder = try TestPaths.temporaryDirectory("imagepipe-gif")
        let path = folder + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (folder, path)
    }
}
