/// Something that fetches the bytes behind a URL: one plugin loader, or the loaders manager that routes by scheme.
public protocol DataLoading: Sendable {
    func canLoad(url: String) -> Bool
    func load(url: String, options: LoadOptions) async throws -> [UInt8]
}

/// The scheme of a URL, or "file" for a plain path.
func urlScheme(of url: String) -> String {
    if url.hasPrefix("/") { return "file" }
    guard let colon = url.firstIndex(of: ":") else { return "file" }
    let scheme = url[..<colon]
    let valid = !scheme.isEmpty && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) } && scheme.first!.isLetter
    return valid ? scheme.lowercased() : "file"
}
