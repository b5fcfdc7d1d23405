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

    public init(quality: Int? = nil, speed: Int? = nil, bitDepth: Int? = nil, lossless: Bool = false,
                progressive: Bool = false, loopCount: Int = 0, background: RGBAColor? = nil) {
        self.quality = quality
        self.speed = speed
        self.bitDepth = bitDepth
        self.lossless = lossless
        self.progressive = progressive
        self.loopCount = loopCount
        self.background = background
    }

    var abi: ip_encode_options {
        var flags: UInt32 = 0
        if lossless { flags |= UInt32(IP_ENCODE_LOSSLESS) }
        if progressive { flags |= UInt32(IP_ENCODE_PROGRESSIVE) }
        return ip_encode_options(
            struct_size: UInt32(MemoryLayout<ip_encode_options>.size),
            quality: UInt32(clamping: quality ?? 0), speed: UInt32(clamping: speed ?? 0),
            bit_depth: UInt32(clamping: bitDepth ?? 0), flags: flags, loop_count: UInt32(clamping: loopCount))
    }
}
