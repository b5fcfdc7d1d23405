/// The loop every per-pixel transformer shares (tint, flatten, grayscale, shape masks): rows of `image` into rows of
/// a new image of the same size, one pixel at a time, with the body written once per sample size. Keeps
/// each transformer to its arithmetic, and the stride and format handling in one place.
enum PixelKernel {
    /// A new image of `image`'s size, `pixelFormat` and `alphaMode`, each pixel from `rgba8` or `rgba16` (given the
    /// source pixel's 4 samples, its x and y, and the target pixel's 4 samples); colour label and frame facts kept
    /// unless `color` says otherwise.
    @inline(__always)
    static func map(_ image: Image, alphaMode: AlphaMode, color: ColorDescription?? = .none,
                    rgba8: (UnsafePointer<UInt8>, Int, Int, UnsafeMutablePointer<UInt8>) -> Void,
                    rgba16: (UnsafePointer<UInt16>, Int, Int, UnsafeMutablePointer<UInt16>) -> Void) throws -> Image {
        let output = try Image(width: image.width, height: image.height, pixelFormat: image.pixelFormat, alphaMode: alphaMode)
        image.withUnsafeRows { source in
            output.withUnsafeMutableRows { target in
                for y in 0..<image.height {
                    let s = source + y * image.stride, t = target + y * output.stride
                    switch image.pixelFormat {
                    case .rgba8:
                        for x in 0..<image.width { rgba8(s + x * 4, x, y, t + x * 4) }
                    case .rgba16:
                        let sp = UnsafeRawPointer(s).assumingMemoryBound(to: UInt16.self)
                        let tp = UnsafeMutableRawPointer(t).assumingMemoryBound(to: UInt16.self)
                        for x in 0..<image.width { rgba16(sp + x * 4, x, y, tp + x * 4) }
                    }
                }
            }
        }
        let label = color ?? image.color
        return output.with(color: label).with(durationMilliseconds: image.durationMilliseconds, index: image.index)
    }
}
