extension ImageTransformers {
    /// Template tinting: the tint colour with the image's alpha (SwiftUI's `.renderingMode(.template)`).
    ///
    /// Output alpha = source alpha x tint alpha; colour = the tint, in straight alpha. Vector coders that tint at
    /// render time produce the same pixels from the same coverage.
    public enum Tint {
        public static func template(_ image: Image, color: RGBAColor) throws -> Image {
            let output = try Image(width: image.width, height: image.height, pixelFormat: image.pixelFormat, alphaMode: .straight)
            let tintAlpha = UInt32(color.alpha)
            image.withUnsafeRows { source in
                output.withUnsafeMutableRows { target in
                    for y in 0..<image.height {
                        let s = source + y * image.stride
                        let t = target + y * output.stride
                        for x in 0..<image.width {
                            switch image.pixelFormat {
                            case .rgba8:
                                let a = image.alphaMode == .none ? 255 : UInt32(s[x * 4 + 3])
                                t[x * 4] = color.red; t[x * 4 + 1] = color.green; t[x * 4 + 2] = color.blue
                                t[x * 4 + 3] = UInt8((a * tintAlpha + 127) / 255)
                            case .rgba16:
                                let sp = UnsafeRawPointer(s).assumingMemoryBound(to: UInt16.self)
                                let tp = UnsafeMutableRawPointer(t).assumingMemoryBound(to: UInt16.self)
                                let a = image.alphaMode == .none ? 65535 : UInt32(sp[x * 4 + 3])
                                tp[x * 4] = UInt16(color.red) * 257; tp[x * 4 + 1] = UInt16(color.green) * 257
                                tp[x * 4 + 2] = UInt16(color.blue) * 257
                                tp[x * 4 + 3] = UInt16((a * tintAlpha + 127) / 255)
                            }
                        }
                    }
                }
            }
            return output
        }
    }
}
