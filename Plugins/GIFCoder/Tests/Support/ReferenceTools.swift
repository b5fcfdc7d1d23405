import Foundation
import PipelineHost
import TestSupport

/// ImageMagick and gifsicle as reference tools: they make real-world GIFs (quantised, optimised with sub-rectangles,
/// transparency and disposal, interlaced) and ImageMagick's `-coalesce` gives the composited frames to compare with.
enum ReferenceTools {
    static var hasImageMagick: Bool { CommandLine.hasTool("convert") }
    static var hasGifsicle: Bool { CommandLine.hasTool("gifsicle") }
    static let missing = "skipping: needs ImageMagick's convert and gifsicle (apt-get install imagemagick gifsicle)"

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs a shell command in `folder`, failing with its stderr.
    @discardableResult
    static func run(_ command: String, in folder: String) throws -> String {
        let result = try CommandLine.shell("cd '\(folder)' && \(command)")
        guard result.status == 0 else { throw Failure(description: "\(command): \(result.stderr)") }
        return result.stdout
    }

    /// ImageMagick's composited frames of `gif` as tightly packed RGBA8, one array per frame.
    static func coalesce(_ gif: String, in folder: String, width: Int, height: Int) throws -> [[UInt8]] {
        try run("convert '\(gif)' -coalesce -depth 8 rgba:coalesced.rgba", in: folder)
        let all = try TestFiles.read(folder + "/coalesced.rgba")
        let frameBytes = width * height * 4
        guard all.count % frameBytes == 0 else {
            throw Failure(description: "coalesced output of \(all.count) bytes is not a multiple of \(frameBytes)")
        }
        return stride(from: 0, to: all.count, by: frameBytes).map { Array(all[$0..<($0 + frameBytes)]) }
    }

    /// Where two RGBA8 buffers differ by more than `tolerance` in any channel (fully transparent pixels match
    /// whatever their colour), as "count differ; first at (x, y): ours vs theirs", or nil.
    static func difference(_ ours: [UInt8], _ theirs: [UInt8], width: Int, tolerance: Int = 0) -> String? {
        guard ours.count == theirs.count else { return "sizes differ: \(ours.count) vs \(theirs.count) bytes" }
        var count = 0
        var first: String?
        for i in stride(from: 0, to: ours.count, by: 4) {
            if ours[i + 3] == 0 && theirs[i + 3] == 0 { continue }
            let differs = (0..<4).contains { abs(Int(ours[i + $0]) - Int(theirs[i + $0])) > tolerance }
            if differs {
                count += 1
                if first == nil {
                    first = "(\(i / 4 % width), \(i / 4 / width)): \(Array(ours[i..<(i + 4)])) vs \(Array(theirs[i..<(i + 4)]))"
                }
            }
        }
        return first.map { "\(count) pixels differ; first at \($0)" }
    }
}
