/// Something that turns encoded bytes into images: one plugin coder, or the coders manager that chooses
/// among them (a manager is itself a decoder, as in SDWebImage).
public protocol ImageDecoding: Sendable {
    /// True when this decoder (or one of its parts) recognises the bytes.
    func canDecode(_ data: [UInt8]) -> Bool
    func probe(data: [UInt8], options: DecodeOptions) throws -> ImageInfo
    func decode(data: [UInt8], options: DecodeOptions) throws -> Image
}

/// Something that turns images into encoded bytes of a format.
public protocol ImageEncoding: Sendable {
    func canEncode(format: String) -> Bool
    func encode(_ image: Image, format: String, options: EncodeOptions) throws -> [UInt8]
}
