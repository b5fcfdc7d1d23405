extension ImageTransformers {
    /// Template tinting: the tint colour with the image's alpha (SwiftUI's `.renderingMode(.template)`).
    ///
    /// Output alpha = source alpha x tint alpha; colour = the tint, in straight alpha. Vector coders that tint at
    /// render time produce the same pixels from the same coverage.
    public enum Tint {
        public static func template(_ image: Image, color: RGBAColor) throws -> Image {
            let tintAlpha = UInt32(color.alpha), opaque = image.alphaMode == .none
            let (r16, g16, b16) = (UInt16(color.red) * 257, UInt16(color.green) * 257, UInt16(color.blue) * 257)
            return try PixelKernel.map(image, alphaMode: .straight) { s, _, _, t in
                let a = opaque ? 255 : UInt32(s[3])
                t[0] = color.red; t[1] = color.green; t[2] = color.blue
                t[3] = UInt8((a * tintAlpha + 127) / 255)
            } rgba16: { s, _, _, t in
                let a = opaque ? 65535 : UInt32(s[3])
                t[0] = r16; t[1] = g16; t[2] = b16
                t[3] = UInt16((a * tintAlpha + 127) / 255)
            }
        }
    }
}
