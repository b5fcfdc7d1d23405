/// The two keys of a request: the original bytes live under `dataKey` (the URL), the result under `imageKey`
/// (the URL plus everything that changes the pixels), so a second thumbnail size of a URL reuses the original.
///
/// Serialised deterministically with a version prefix; the URL passes through the pipeline's key filter first
/// (e.g. to drop signed-URL query tokens).
public struct ImageCacheKey: Sendable, Hashable, CustomStringConvertible {
    public let dataKey: String
    public let imageKey: String

    public init(_ request: ImageRequest, filter: (String) -> String = { $0 }) {
        let url = filter(request.url)
        dataKey = "ip1|data|" + url
        // ip2: results are colour-converted since the colour stage (ip1 results were not).
        var key = "ip2|image|" + url
        for term in request.options.resultKeyTerms { key.append("|"); key.append(term) }
        for identifier in request.transformerIdentifiers { key.append("|t="); key.append(identifier) }
        imageKey = key
    }

    /// True when the result is the plain decode of the original (nothing derived to cache separately on disk).
    var isPlainDecode: Bool { imageKey == "ip2|image|" + dataKey.dropFirst("ip1|data|".count) }

    public var description: String { imageKey }
}
