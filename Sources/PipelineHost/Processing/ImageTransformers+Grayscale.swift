extension ImageTransformers {
    /// Gray from Rec. 709 luma on the encoded values (Y' = 0.2126 R' + 0.7152 G' + 0.0722 B'), as ImageMagick's
    /// `-grayscale Rec709Luma`; alpha kept. Premultiplied pixels stay premultiplied (luma is linear in R'G'B').
    public struct Grayscale: ImageTransforming {
        public init() {}
        public var key: TransformKey { TransformKey("grayscale", ["": .text("rec709luma")]) }

        public func transform(_ image: Image) throws -> Image {
            // The gray values are still in the source's encoding; a colour profile no longer describes them.
            try PixelKernel.map(image, alphaMode: image.alphaMode, color: .some(nil)) { s, _, _, t in
                // Weights × 10000, rounded to sum exactly 10000 so white stays white.
                let weighted: UInt32 = 2126 * UInt32(s[0]) + 7152 * UInt32(s[1]) + 722 * UInt32(s[2])
                let luma = UInt8((weighted + 5000) / 10000)
                t[0] = luma; t[1] = luma; t[2] = luma; t[3] = s[3]
            } rgba16: { s, _, _, t in
                let weighted: UInt64 = 2126 * UInt64(s[0]) + 7152 * UInt64(s[1]) + 722 * UInt64(s[2])
                let luma = UInt16((weighted + 5000) / 10000)
                t[0] = luma; t[1] = luma; t[2] = luma; t[3] = s[3]
            }
        }
    }
}
