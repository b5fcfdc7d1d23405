import Foundation
import PipelineHost
import TestSupport

/// Shared fixtures and helpers for the SVG coder's tests.
enum SVGTest {
    static let coderID = "org.imagepipe.coder.svg/1"

    /// One host for every test: the SVG coder is not thread-safe, and the host serialises calls per loaded coder,
    /// so sharing one host keeps parallel tests from rendering concurrently.
    private static let loaded = Result { try PluginSandbox.host(loading: ["libSVGCoder.so"]) }

    static func host() throws -> PluginHost { try loaded.get() }

    static func decode(_ bytes: [UInt8], _ options: DecodeOptions = DecodeOptions()) throws -> Image {
        try host().coders.decode(data: bytes, options: options)
    }

    static func probe(_ bytes: [UInt8], _ options: DecodeOptions = DecodeOptions()) throws -> ImageInfo {
        try host().coders.probe(data: bytes, options: options)
    }

    /// `<svg xmlns=... width= height= viewBox=>body</svg>`, leaving out the attributes that are nil.
    static func svg(width: String? = nil, height: String? = nil, viewBox: String? = nil, _ body: String = "") -> [UInt8] {
        var attributes = #"xmlns="http://www.w3.org/2000/svg""#
        if let width { attributes += #" width="\#(width)""# }
        if let height { attributes += #" height="\#(height)""# }
        if let viewBox { attributes += #" viewBox="\#(viewBox)""# }
        return Array("<svg \(attributes)>\(body)</svg>".utf8)
    }

    /// A file: URL for an absolute path made of URL-safe characters (temp folders and the corpus are).
    static func fileURL(_ path: String) -> String {
        "file://" + (path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path)
    }

    /// The output size and straight RGBA8 pixels of `rsvg-convert [-w W -h H] svg`, read back through ImageMagick.
    static func reference(svgPath: String, width: Int? = nil, height: Int? = nil) throws -> (width: Int, height: Int, rgba: [UInt8]) {
        let folder = try TestPaths.temporaryDirectory("svg-reference")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var arguments = ["-o", folder + "/out.png"]
        if let width { arguments += ["-w", String(width)] }
        if let height { arguments += ["-h", String(height)] }
        let render = try CommandLine.run("/usr/bin/rsvg-convert", arguments + [svgPath])
        guard render.status == 0 else { throw TestSupportError("rsvg-convert failed: \(render.stderr)") }
        let image = try MagickRGBA.read(folder + "/out.png")
        return (image.width, image.height, image.bytes)
    }

    static var hasReferenceTools: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/rsvg-convert")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/convert")
    }
}

/// How far a decoded image is from a reference rendering, both straight RGBA8 of the same size.
///
/// Alpha is compared at every pixel; colour only where both alphas are non-zero (a fully transparent pixel has
/// no colour). `maxChannel` is the largest absolute difference of any channel, `differing` the number of pixels
/// with any difference at all.
///
/// One known, explained difference is excluded and counted in `overflowing`: librsvg sometimes leaves
/// premultiplied pixels whose colour exceeds their alpha (seen with group opacity over patterns). We clamp such a
/// channel to 255 when un-premultiplying; cairo's PNG writer (used by rsvg-convert) stores it in a uint8_t and so
/// wraps it modulo 256. A pixel counts there only when ours is 255 and the reference value is exactly such a wrap.
struct PixelDifference: CustomStringConvertible {
    var maxChannel = 0
    var differing = 0
    var overflowing = 0
    var pixels = 0

    init(_ image: Image, _ reference: [UInt8]) {
        let ours = image.bytes
        pixels = image.width * image.height
        precondition(ours.count == reference.count, "sizes differ")
        for index in stride(from: 0, to: ours.count, by: 4) {
            let alpha = Int(reference[index + 3])
            var worst = abs(Int(ours[index + 3]) - alpha)
            var wrapped = false
            if ours[index + 3] > 0, alpha > 0 {
                for channel in 0..<3 {
                    let (a, b) = (Int(ours[index + channel]), Int(reference[index + channel]))
                    if a == 255, b != 255, Self.isWrappedOverflow(b, alpha: alpha) {
                        wrapped = true
                        continue
                    }
                    worst = max(worst, abs(a - b))
                }
            }
            maxChannel = max(maxChannel, worst)
            if worst > 0 { differing += 1 }
            if wrapped { overflowing += 1 }
        }
    }

    /// True when some premultiplied value c > alpha gives `value` through cairo's (c * 255 + a / 2) / a mod 256.
    static func isWrappedOverflow(_ value: Int, alpha: Int) -> Bool {
        (alpha + 1...255).contains { ((($0 * 255 + alpha / 2) / alpha) & 0xFF) == value }
    }

    var description: String {
        "max channel diff \(maxChannel), \(differing) of \(pixels) pixels differ"
            + (overflowing > 0 ? ", \(overflowing) super-luminous pixels clamped (cairo's PNG writer wraps them)" : "")
    }
}
