import FoundationEssentials
import PipelineHost
#if canImport(Glibc)
import Glibc
#endif

/// Which sources a service may read: remote URLs only under an allowed prefix (none by default), local files only
/// inside the root folder, resolved through every link before the check, so neither `..` nor a symbolic link
/// leaves it.
struct SourcePolicy: Sendable {
    /// URL prefixes ("https://cdn.example.com/images/"); compared after lower-casing the scheme and host.
    var allowedPrefixes: [String]
    /// The folder local sources are read from (`local:///a/b.png` or `/a/b.png` is `root/a/b.png`); nil = none.
    var root: String?

    enum Decision: Equatable { case allowed(String), refused(Int, String) }

    func resolve(_ source: String) -> Decision {
        let lowered = source.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            let normalized = Self.normalized(source)
            guard allowedPrefixes.contains(where: { normalized.hasPrefix(Self.normalized($0)) }) else {
                return allowedPrefixes.isEmpty
                    ? .refused(403, "remote sources are not allowed here (the service runs with no --allow-source)")
                    : .refused(403, "the source is not under an allowed prefix")
            }
            return .allowed(source)
        }
        var path = source
        if lowered.hasPrefix("local://") { path = String(source.dropFirst("local://".count)) }
        guard path.hasPrefix("/"), !lowered.contains("://") || lowered.hasPrefix("local://") else {
            return .refused(403, "only http(s) URLs and local:///paths are sources")
        }
        guard let root else { return .refused(403, "local sources are not allowed here (the service runs with no --root)") }
        if path.split(separator: "/").contains("..") { return .refused(403, "the path leaves the root folder") }
        let joined = root + path
        guard let real = realpath(joined, nil) else {
            return errno == ENOENT || errno == ENOTDIR ? .refused(404, "no such file") : .refused(403, "the path cannot be resolved")
        }
        defer { free(real) }
        let resolved = String(cString: real)
        guard resolved.hasPrefix(root.hasSuffix("/") ? root : root + "/") else {
            return .refused(403, "the path leaves the root folder")
        }
        return .allowed(resolved)
    }

    /// Scheme and host lower-cased, the rest as given.
    static func normalized(_ url: String) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return url }
        let afterScheme = url[schemeEnd.upperBound...]
        let hostEnd = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        return url[..<hostEnd].lowercased() + url[hostEnd...]
    }
}
