/// Facts about a source read without decoding pixels (`imagepipe info`).
public struct ImageInfo: Sendable, Codable, Equatable {
    public var format: String
    public var width: Int
    public var height: Int
    /// Animation frames; 0 when the coder cannot tell without decoding every frame.
    public var frameCount: Int
    public var pageCount: Int
    /// 0 = infinite, nil = not stated by the file.
    public var loopCount: Int?
    public var bitDepth: Int
    public var hasAlpha: Bool
    public var details: String
    /// The coder that read it.
    public var coderID: String
    /// What the source says about its colour; nil when it says nothing (sRGB).
    public var color: ColorDescription? = nil
    /// Exif and XMP, when the coder hands them over (ABI 1.1) and the file has any.
    public var metadata: MetadataSummary? = nil
}
