import PluginAPI

/// How to encode. Every field's default defers to the coder.
public struct EncodeOptions: Sendable, Hashable, Codable {
    /// 1...100; nil = the coder's default.
    public var quality: Int?
    /// 1...10, higher is faster; nil = the coder's default.
    public var speed: Int?
    /// Bits per channel; nil = from the image.
    public var bitDepth: Int?
    public var lossless: Bool
    public var progressive: Bool
    /// Animation loops; 0 = infinite.
    public var loopCount: Int
    /// What transparent pixels become in a format without alpha (JPEG); nil = white, as libvips and ImageMagick
    /// do when saving transparency to JPEG. Formats with alpha keep it and ignore this.
    public var background: RGBAColor?
    /// The format's own encoder settings (ABI 1.1 `settings`), e.g. ["compression": "lzw"] for TIFF; an encoder
    /// refuses a key it does not document.
    public var settings: [String: String]
    /// A byte budget (imgproxy's `max_bytes`): the highest quality, at most `quality`, whose output fits (see
    /// `ByteBudget`); a format whose size does not follow the quality (PNG, GIF, lossless) is encoded once as asked.
    /// nil = no budget.
    public var maxBytes: Int?
    /// What the output keeps of the source's Exif and XMP; `.none` by default (see `MetadataPolicy`). The blocks
    /// themselves come from the source (`ImageManager.encodedImage` reads them; a direct `CodersManager.encode`
    /// takes them as its `metadata`).
    public var keepMetadata: MetadataPolicy

    public init(quality: Int? = nil, speed: Int? = nil, bitDepth: Int? = nil, lossless: Bool = false,
                progressive: Bool = false, loopCount: Int = 0, background: RGBAColor? = nil, settings: [String: String] = [:],
                maxBytes: Int? = nil, keepMetadata: MetadataPolicy = .none) {
        self.quality = quality
        self.speed = speed
        self.bitDepth = bitDepth
        self.lossless = lossless
        self.progressive = progressive
        self.loopCount = loopCount
        self.background = background
        self.settings = settings
        self.maxBytes = maxBytes
        self.keepMetadata = keepMetadata
    }

    /// The settings as the ABI's lines, in key order (nil for none).
    public var settingsLines: String? {
        settings.isEmpty ? nil : settings.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\n")
    }

    /// The options as the ABI struct, alive (with its settings text and the metadata blocks) for `body`.
    func withABI<R>(metadata: KeptMetadata? = nil, _ body: (UnsafePointer<ip_encode_options>) throws -> R) rethrows -> R {
        var flags: UInt32 = 0
        if lossless { flags |= UInt32(IP_ENCODE_LOSSLESS) }
        if progressive { flags |= UInt32(IP_ENCODE_PROGRESSIVE) }
        var options = ip_encode_options(
            struct_size: UInt32(MemoryLayout<ip_encode_options>.size),
            quality: UInt32(clamping: quality ?? 0), speed: UInt32(clamping: speed ?? 0),
            bit_depth: UInt32(clamping: bitDepth ?? 0), flags: flags, loop_count: UInt32(clamping: loopCount), settings: nil,
            exif_size: 0, xmp_size: 0, exif: nil, xmp: nil)
        let exif = metadata?.exif ?? [], xmp = metadata?.xmp ?? []
        return try exif.withUnsafeBufferPointer { exifBytes in
            try xmp.withUnsafeBufferPointer { xmpBytes in
                if !exifBytes.isEmpty { options.exif = exifBytes.baseAddress; options.exif_size = UInt32(exifBytes.count) }
                if !xmpBytes.isEmpty { options.xmp = xmpBytes.baseAddress; options.xmp_size = UInt32(xmpBytes.count) }
                guard let lines = settingsLines else { return try body(&options) }
                return try lines.withCString { text in
                    options.settings = text
                    return try body(&options)
                }
            }
        }
    }
}
