extension ImageTransformers {
    /// Gray from Rec. 709 luma on the encoded values (Y' = 0.2126 R' + 0.7152 G' + 0.0722 B'), as ImageMagick's
    /// `-grayscale Rec709Luma`; alpha kept. Premultiplied pixels stay premultiplied (luma is linear in R'G'B').
    public struct Grayscale: ImageTransforming {
        public init() {}
        public var key: TransformKey { TransformKey("grayscale", ["": .text("rec709luma")]) }

        public func transform(_ image: Image) throws -> Image {
            let output = try Image(width: image.width, height: image.height, pixelFormat: image.pixelFormat, alphaMode: image.alphaMode)
            image.withUnsafeRows { source in
                output.withUnsafeMutableRows { target in
                    for y in 0..<image.height {
                        let s = source + y * image.stride, t = target + y * output.stride
                        switch image.pixelFormat {
                        case .rgba8:
                            for x in 0..<image.width {
                                let p = x * 4
                                // Weights × 10000, rounded to sum exactly 10000 so white stays white.
                                let luma = (2126 * UInt32(s[p]) + 7152 * UInt32(s[p + 1]) + 722 * UInt32(s[p + 2]) + 5000) / 10000
                                t[p] = UInt8(luma); t[p + 1] = UInt8(luma); t[p + 2] = UInt8(luma); t[p + 3] = s[p + 3]
                            }
                        case .rgba16:
                            let sp = UnsafeRawPointer(s).assumingMemoryBound(to: UInt16.self)
                            let tp = UnsafeMutableRawPointer(t).assumingMemoryBound(to: UInt16.self)
                            for x in 0..<image.width {
                                let p = x * 4
                                let luma = (2126 * UInt64(sp[p]) + 7152 * UInt64(sp[p + 1]) + 722 * UInt64(sp[p + 2]) + 5000) / 10000
                                tp[p] = UInt16(luma); tp[p + 1] = UInt16(luma); tp[p + 2] = UInt16(luma); tp[p + 3] = sp[p + 3]
                            }
                        }
                    }
                }
            }
            // The gray values are still in the source's encoding; a colour profile no longer describes them.
            return output.with(color: nil).with(durationMilliseconds: image.durationMilliseconds, index: image.index)
        }
    }
}
