/// A decoded result as bytes for the disk cache: a small header and the raw pixels.
///
/// Derived results (thumbnails, pages, tinted icons) are stored raw rather than re-encoded: reading them back is a
/// copy, needs no coder plugin, and is exact. Only results up to `maxPixels` are stored this way.
enum ImageBlob {
    static let maxPixels = 4 << 20
    private static let magic: [UInt8] = Array("IPIMG001".utf8)

    static func encode(_ image: Image) -> [UInt8]? {
        guard image.width * image.height <= maxPixels else { return nil }
        var out = magic
        for value in [UInt32(image.width), UInt32(image.height), UInt32(image.durationMilliseconds), UInt32(image.index)] {
            out += withUnsafeBytes(of: value.littleEndian) { Array($0) }
        }
        out.append(image.pixelFormat == .rgba8 ? 1 : 2)
        out.append(image.alphaMode == .none ? 0 : image.alphaMode == .straight ? 1 : 2)
        out += image.bytes
        return out
    }

    static func decode(_ bytes: [UInt8]) -> Image? {
        let header = magic.count + 18
        guard bytes.count >= header, Array(bytes[0..<magic.count]) == magic else { return nil }
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        let width = u32(magic.count), height = u32(magic.count + 4)
        let duration = u32(magic.count + 8), index = u32(magic.count + 12)
        let format: PixelFormat = bytes[magic.count + 16] == 2 ? .rgba16 : .rgba8
        let alpha: AlphaMode = [AlphaMode.none, .straight, .premultiplied][Int(min(bytes[magic.count + 17], 2))]
        guard width > 0, height > 0, width * height <= maxPixels,
              bytes.count == header + width * height * format.bytesPerPixel,
              let image = try? Image(width: width, height: height, pixelFormat: format, alphaMode: alpha, bytes: Array(bytes[header...]))
        else { return nil }
        return image.with(durationMilliseconds: duration, index: index)
    }
}
