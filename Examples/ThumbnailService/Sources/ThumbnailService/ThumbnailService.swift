import Foundation
import PipelineHost

/// Renders a 64×64 PNG thumbnail of each source (a path or an http(s) URL) into the output folder and prints one
/// line per source: what a request handler of a Swift server does per request, without the server.
///
/// `ImageManager.shared` scans the default plugin search path once, on first use; it is safe to call from any
/// task at once (identical requests share one fetch and one decode).
@main
struct ThumbnailService {
    static func main() async {
        var sources: [String] = []
        var output = "."
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            if argument == "--out", let folder = arguments.popFirst() { output = folder } else { sources.append(argument) }
        }
        guard !sources.isEmpty else {
            FileHandle.standardError.write(Data("usage: ThumbnailService SOURCE... [--out DIR]\n".utf8))
            exit(2)
        }
        let pipeline = ImageManager.shared
        var failures = 0
        for (index, source) in sources.enumerated() {
            do {
                let thumbnail = try await pipeline.image(for: source, thumbnailPixelSize: PixelSize(width: 64, height: 64))
                let png = try pipeline.host.coders.encode(thumbnail, format: "png")
                let path = "\(output)/thumbnail-\(index).png"
                try Data(png).write(to: URL(fileURLWithPath: path))
                print("\(source) -> \(path) \(thumbnail.width)x\(thumbnail.height)")
            } catch {
                failures += 1
                FileHandle.standardError.write(Data("ThumbnailService: \(source): \(error)\n".utf8))
            }
        }
        exit(failures == 0 ? 0 : 1)
    }
}
