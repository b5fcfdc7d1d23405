/// Something that fetches the bytes behind a URL: one plugin loader, or the loaders manager that routes by scheme.
public protocol DataLoading: Sendable {
    func canLoad(url: String) -> Bool
    func load(url: String, options: LoadOptions) async throws -> [UInt8]
    /// The source as a file its coder may read by ranges (`RangedSource`), when it is one of at least `threshold`
    /// bytes that `load` would read (anything it would refuse is left to `load`, which says why; the image manager
    /// itself holds the file to `options.maxBytes`). Default nil: every source is loaded whole. A loader of local
    /// files implements it so that a 300 MB scan's thumbnail reads the strips it needs instead of the file.
    func rangedSource(url: String, options: LoadOptions, threshold: Int) -> RangedSource?
}

extension DataLoading {
    public func rangedSource(url: String, options: LoadOptions, threshold: Int) -> RangedSource? { nil }
}

/// The scheme of a URL, or "file" for a plain path.
func urlScheme(of url: String) -> String {
    if url.hasPrefix("/") { return "file" }
    guard let colon = url.firstIndex(of: ":") else { return "file" }
    let scheme = url[..<colon]
    let valid = !scheme.isEmpty && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) } && scheme.first!.isLetter
    return valid ? scheme.lowercased() : "file"
}
