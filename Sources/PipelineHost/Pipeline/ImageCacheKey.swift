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
        let o = request.options
        dataKey = "ip1|data|" + url
        // ip2: results are colour-converted since the colour stage (ip1 results were not).
        var parts = ["ip2", "image", url]
        if let size = o.thumbnailSize { parts.append("size=\(size)"); parts.append("mode=\(o.scaleMode.rawValue)") }
        if o.pageIndex != 0 { parts.append("page=\(o.pageIndex)") }
        if o.frameIndex != 0 { parts.append("frame=\(o.frameIndex)") }
        if let tint = o.tint { parts.append("tint=\(tint)") }
        if o.template { parts.append("template") }
        if o.allowUpscale { parts.append("upscale") }
        if o.highBitDepth { parts.append("16bit") }
        if o.transparentBackground { parts.append("transparent") }
        if o.ignoreOrientation { parts.append("no-orientation") }
        if o.firstFrameOnly { parts.append("first-frame") }
        if o.colorOutput != .srgb { parts.append("color=\(o.colorOutput.rawValue)") }
        for transformer in request.transformers { parts.append("t=" + transformer.identifier) }
        imageKey = parts.joined(separator: "|")
    }

    /// True when the result is the plain decode of the original (nothing derived to cache separately on disk).
    var isPlainDecode: Bool { imageKey == "ip2|image|" + dataKey.dropFirst("ip1|data|".count) }

    public var description: String { imageKey }
}
