import PluginAPI
import Synchronization

/// `info` of a remote source from its first bytes: one ranged read (`Range: bytes=0-65535`) instead of the whole
/// object, for formats whose facts all precede the image data — a 40 MB photo in S3 costs 64 KiB, as `exiftool
/// -fast` or libvips' header-only loads read it.
///
/// Only where it is safe: the loader claims `IP_LOADER_RANGES`; the prefix is used only for JPEG and PNG, whose
/// probes read the markers/chunks before the entropy-coded data (JPEG's SOF and APPn, PNG's IHDR, acTL, iCCP, cICP
/// …). Formats whose facts can sit anywhere — frame counts of GIF, WebP and JPEG XL animations, TIFF's IFD chains,
/// PDF's cross-reference table at the end, ISO-BMFF files whose item extents point past the prefix — take the
/// whole-object path, as does every failure of the prefix (a probe that wants more, an origin error, a 416): that
/// path gives the canonical answer and error. An origin that ignores ranges answers 200 with the whole body, which
/// is probed as it is.
struct PrefixInfo {
    /// Enough for JPEG's APP segments (EXIF with a thumbnail, an ICC profile) before SOF in the files met in
    /// practice; a file whose SOF comes later takes the whole-object path.
    static let prefixBytes = 64 * 1024
    /// Formats (the probe's `format`) whose facts a probe reads entirely from the file's start.
    static let headerFormats: Set<String> = ["jpeg", "png"]

    let loaders: LoadersManager
    let coders: CodersManager
    let configuration: ImageManagerConfiguration

    /// Whether a ranged read is worth trying: a loader of the URL's scheme that honours ranges, the caller asked
    /// for no range of its own, and no source loader of the caller's stands in for the plugins.
    func applies(to request: ImageRequest) -> Bool {
        guard request.fetchPolicy.mayLoad, configuration.sourceLoader?.canLoad(url: request.url) != true,
              let loader = loaders.loader(for: request.url), loader.descriptor.capabilities & UInt64(IP_LOADER_RANGES) != 0 else { return false }
        return !request.loadOptions.headers.contains { $0.lowercased().hasPrefix("range:") }
    }

    /// The facts from the prefix, or nil when the whole object must be read instead.
    func info(for request: ImageRequest, options: DecodeOptions) async -> ImageInfo? {
        var loadOptions = request.loadOptions
        if options.limits.maxInputBytes > 0 { loadOptions.maxBytes = min(loadOptions.maxBytes ?? Int.max, options.limits.maxInputBytes) }
        configuration.requestModifier?(request.url, &loadOptions)
        loadOptions.headers.append("Range: bytes=0-\(Self.prefixBytes - 1)")
        let seen = Mutex<LoadResponse?>(nil)
        let validate = configuration.responseValidator
        let hooks = LoadHooks(validateResponse: { response in
            seen.withLock { $0 = response }
            try validate(response)
        }, approveRedirect: configuration.redirectPolicy)
        guard let bytes = try? await loaders.load(url: request.url, options: loadOptions, hooks: hooks),
              let response = seen.withLock({ $0 }) else { return nil }
        let whole = response.statusCode != 206 || Self.total(response.header("Content-Range")).map { bytes.count >= $0 } == true
        guard let info = try? coders.probe(data: bytes, options: options, route: try coders.route(for: bytes, options: options)) else { return nil }
        return whole || Self.headerFormats.contains(info.format) ? info : nil
    }

    /// The object's size from "bytes 0-65535/1234567" (nil for "*" or anything else).
    static func total(_ contentRange: String?) -> Int? {
        guard let contentRange, let slash = contentRange.lastIndex(of: "/") else { return nil }
        return Int(contentRange[contentRange.index(after: slash)...].filter { $0 != " " })
    }
}
