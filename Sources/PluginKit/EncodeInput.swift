import PluginAPI

/// Checks of what the coder's `encode` slot receives, made the same way (with the same messages) by every encoder.
public enum EncodeInput {
    /// The frames and the sink of an encode call: INVALID_DATA without a frame (or with a NULL one), INTERNAL
    /// without a sink that can write or with an absurd struct_size. The ABI passes an array of pointers, each image
    /// with its own struct_size; the copies here hold what each covers (the pixels stay borrowed).
    public static func check(
        frames: UnsafePointer<UnsafePointer<ip_image>?>?, count: UInt32, sink: UnsafePointer<ip_byte_sink>?
    ) throws -> (frames: [ip_image], sink: UnsafePointer<ip_byte_sink>) {
        guard let frames, count > 0 else { throw PluginFailure.invalidData("no image to encode") }
        guard let sink, sink.pointee.write != nil else { throw PluginFailure.internalError("no output sink") }
        let images = try (0..<Int(count)).map { index -> ip_image in
            guard let image = frames[index] else { throw PluginFailure.invalidData("frame \(index) is NULL") }
            return try ABIStruct.read(image, named: "frame \(index)")
        }
        return (images, sink)
    }

    /// The host's encode options (all defaults when it passed none).
    public static func options(_ pointer: UnsafePointer<ip_encode_options>?) throws -> ip_encode_options {
        guard let pointer else { return ip_encode_options(struct_size: UInt32(MemoryLayout<ip_encode_options>.size),
                                                          quality: 0, speed: 0, bit_depth: 0, flags: 0, loop_count: 0, settings: nil,
                                        exif_size: 0, xmp_size: 0, exif: nil, xmp: nil) }
        return try ABIStruct.read(pointer, named: "ip_encode_options")
    }

    /// The encoder settings (ABI 1.1 `settings` lines; none from a host that predates them), parsed.
    public static func settings(_ options: ip_encode_options) throws -> LoaderConfiguration {
        try LoaderConfiguration(parsing: options.settings.map { String(cString: $0) }, component: "encoder")
    }

    /// The metadata blocks the host asks the encoder to embed (ABI 1.1 `exif`, `xmp`): nil when there are none (the
    /// default policy, or a host that predates the fields, whose struct ends before them and reads as zero).
    /// Copied, so the encoder may keep them past the call; a block over `MetadataBlocks.limit` is dropped.
    public static func metadata(_ options: ip_encode_options) -> MetadataBlocks? {
        func copy(_ pointer: UnsafePointer<UInt8>?, _ size: UInt32) -> [UInt8]? {
            guard let pointer, size > 0, Int(size) <= MetadataBlocks.limit else { return nil }
            return Array(UnsafeBufferPointer(start: pointer, count: Int(size)))
        }
        let blocks = MetadataBlocks(exif: copy(options.exif, options.exif_size), xmp: copy(options.xmp, options.xmp_size))
        return blocks.exif == nil && blocks.xmp == nil ? nil : blocks
    }

    /// A borrowed RGBA8 or RGBA16 image's pixels, whether its samples are 16-bit, and that a row fits its stride.
    /// Throws what `rgbaFormat` and `checkRowFitsStride` throw, in that order.
    public static func rgbaLayout(
        _ image: ip_image, encoder: String
    ) throws -> (pixels: UnsafeMutablePointer<UInt8>, sixteenBit: Bool) {
        let layout = try rgbaFormat(image, encoder: encoder)
        try checkRowFitsStride(image, sixteenBit: layout.sixteenBit)
        return layout
    }

    /// The pixels and sample size of a borrowed image: INVALID_DATA when it is empty, UNSUPPORTED when it is
    /// neither RGBA8 nor RGBA16 ("the <encoder> encoder takes RGBA8 or RGBA16, ...").
    public static func rgbaFormat(
        _ image: ip_image, encoder: String
    ) throws -> (pixels: UnsafeMutablePointer<UInt8>, sixteenBit: Bool) {
        guard let pixels = image.pixels, image.width > 0, image.height > 0 else {
            throw PluginFailure.invalidData("cannot encode an empty \(image.width)x\(image.height) image")
        }
        switch image.format {
        case IP_PIXEL_RGBA8: return (pixels, false)
        case IP_PIXEL_RGBA16: return (pixels, true)
        default:
            throw PluginFailure.unsupported("the \(encoder) encoder takes RGBA8 or RGBA16, not pixel format \(image.format)")
        }
    }

    /// INVALID_DATA when a row of `image` (4 or 8 bytes a pixel) is longer than its stride.
    public static func checkRowFitsStride(_ image: ip_image, sixteenBit: Bool) throws {
        let rowBytes = UInt64(image.width) * (sixteenBit ? 8 : 4)
        guard UInt64(image.stride) >= rowBytes else {
            throw PluginFailure.invalidData("stride \(image.stride) is smaller than a row of \(rowBytes) bytes")
        }
    }
}
