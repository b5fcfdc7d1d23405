/// The farbfeld format itself, knowing nothing about imagepipe (https://tools.suckless.org/farbfeld/):
///
///     "farbfeld"          8 bytes of magic
///     width, height       32-bit unsigned big-endian each
///     pixels              width x height x (R, G, B, A), each a 16-bit unsigned big-endian value,
///                         rows top to bottom, straight (not premultiplied) alpha, sRGB
///
/// Keeping the format apart from the plugin glue keeps both short; replace this file with your format.
enum Farbfeld {
    static let magic: [UInt8] = Array("farbfeld".utf8)
    static let headerSize = 16
    static let bytesPerPixel = 8

    struct Header: Equatable {
        let width: Int
        let height: Int

        /// Bytes of pixel data the header promises, or nil when that overflows.
        var pixelBytes: Int? {
            let (pixels, overflow1) = width.multipliedReportingOverflow(by: height)
            let (bytes, overflow2) = pixels.multipliedReportingOverflow(by: Farbfeld.bytesPerPixel)
            return overflow1 || overflow2 ? nil : bytes
        }
    }

    enum Problem: Error, Equatable {
        case notFarbfeld
        case truncatedHeader
        case emptyImage
        case truncatedPixels(expected: Int, got: Int)
    }

    /// Reads the 16-byte header.
    static func header(_ data: UnsafeBufferPointer<UInt8>) throws(Problem) -> Header {
        guard data.count >= magic.count else { throw data.elementsEqual(magic.prefix(data.count)) ? .truncatedHeader : .notFarbfeld }
        guard data.prefix(magic.count).elementsEqual(magic) else { throw .notFarbfeld }
        guard data.count >= headerSize else { throw .truncatedHeader }
        let width = Int(bigEndian32(data, at: 8)), height = Int(bigEndian32(data, at: 12))
        guard width > 0, height > 0 else { throw .emptyImage }
        return Header(width: width, height: height)
    }

    static func bigEndian32(_ data: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt32 {
        UInt32(data[offset]) << 24 | UInt32(data[offset + 1]) << 16 | UInt32(data[offset + 2]) << 8 | UInt32(data[offset + 3])
    }

    /// The 16 header bytes for an image of width x height.
    static func encodeHeader(width: Int, height: Int) -> [UInt8] {
        magic + [width, height].flatMap { value in (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
    }
}
