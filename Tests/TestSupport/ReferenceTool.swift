import Foundation
import Synchronization

/// Reference programs found by what they are, not by their name on PATH.
///
/// A machine can carry a program called `convert` that is not ImageMagick (a small stand-in script earlier on
/// PATH). A test that ran it by name would compare against whatever that script writes, and a test that only
/// asked `command -v convert` would not skip but fail. So every name with a known identity is resolved to the
/// first candidate (the Debian package's own /usr/bin binary first, then PATH) whose version output names that
/// program; shell command lines run with a PATH whose first folder links each name to that verified binary.
public enum ReferenceTool {
    /// The argument that makes a program say what it is, and the text it must print.
    private static let identities: [String: (argument: String, marker: String)] = [
        "convert": ("-version", "ImageMagick"),
        "identify": ("-version", "ImageMagick"),
        "compare": ("-version", "ImageMagick"),
        "montage": ("-version", "ImageMagick"),
        "rsvg-convert": ("--version", "rsvg-convert"),
        "pdftocairo": ("-v", "pdftocairo"),
        "pdftoppm": ("-v", "pdftoppm"),
        "avifdec": ("--version", "Version"),
        "avifenc": ("--version", "Version"),
        "heif-convert": ("-h", "libheif"),
        "heif-enc": ("-h", "libheif"),
        "djpeg": ("-version", "libjpeg-turbo"),
        "cjpeg": ("-version", "libjpeg-turbo"),
        "gifsicle": ("--version", "Gifsicle"),
        "vips": ("--version", "vips-"),
        "vipsheader": ("--version", "vips-"),
        "tiffcp": ("-h", "LIBTIFF"),
    ]

    /// The verified absolute path of `name`, or nil when no candidate is that program (tests then skip).
    /// Names without a known identity resolve to the first executable of that name on PATH.
    public static func path(_ name: String) -> String? {
        cache.withLock { resolved in
            if let known = resolved[name] { return known }
            let found = resolve(name)
            resolved[name] = found
            return found
        }
    }

    /// PATH for shell command lines: a private folder that links every verified name first, then the caller's PATH.
    public static let shellPATH: String = {
        let inherited = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard let folder = try? TestPaths.temporaryDirectory("imagepipe-reference-tools") else { return inherited }
        for name in identities.keys.sorted() {
            guard let target = path(name) else { continue }
            _ = symlink(target, folder + "/" + name)
        }
        return folder + ":" + inherited
    }()

    private static let cache = Mutex<[String: String?]>([:])

    private static func resolve(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let onPath = path.split(separator: ":").map { "\($0)/\(name)" }
        let candidates = (identities[name] == nil ? onPath : ["/usr/bin/\(name)"] + onPath)
            .filter { FileManager.default.isExecutableFile(atPath: $0) }
        guard let identity = identities[name] else { return candidates.first }
        return candidates.first { candidate in
            guard let result = try? CommandLine.run(candidate, [identity.argument]) else { return false }
            return (result.stdout + result.stderr).contains(identity.marker)
        }
    }
}
