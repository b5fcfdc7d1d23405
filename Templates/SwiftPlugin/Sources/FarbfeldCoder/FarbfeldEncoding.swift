import PluginAPI
import PluginKit

/// encode: the host lends the image (any of RGBA8/RGBA16 with no, straight or premultiplied alpha, rows `stride`
/// apart); the plugin writes farbfeld into the host's sink and stops at the first failed write.
enum FarbfeldEncoding {
    /// farbfeld is lossless and has no settings, so `options` (quality, speed) does not apply.
    static func encode(frames: UnsafePointer<UnsafePointer<ip_image>?>?, count: UInt32, options: UnsafePointer<ip_encode_options>?,
                       call: OpaquePointer?, sink: UnsafePointer<ip_byte_sink>?) throws {
        // The kit's checks: at least one frame, each read within its struct_size, and a sink that can write.
        let (frames, sink) = try EncodeInput.check(frames: frames, count: count, sink: sink)
        guard let write = sink.pointee.write else { throw PluginFailure.internalError("NULL sink") }
        // farbfeld holds one still image: an animation's first frame.
        let image = frames[0]
        let width = Int(image.width), height = Int(image.height)
        let samples = try straightRGBA16(image)

        func send(_ bytes: [UInt8]) throws {
            let status = bytes.withUnsafeBufferPointer { write(sink.pointee.context, $0.baseAddress, $0.count) }
            if status != ip_status(IP_STATUS_OK) { throw PluginFailure(status, "the output sink refused \(bytes.count) bytes") }
        }
        try send(Farbfeld.encodeHeader(width: width, height: height))
        var row = [UInt8](repeating: 0, count: width * Farbfeld.bytesPerPixel)
        for y in 0..<height {
            if y % 64 == 0 { try Host.checkCancellation(call) }
            for index in 0..<(width * 4) {
                let value = samples[y * width * 4 + index]
                row[index * 2] = UInt8(value >> 8)
                row[index * 2 + 1] = UInt8(value & 0xFF)
            }
            try send(row)
        }
    }

    /// The image as packed, straight-alpha 16-bit samples. 16-bit straight input keeps its precision; everything
    /// else goes through PluginKit's straight RGBA8 conversion and is widened (v * 257 maps 255 to 65535).
    static func straightRGBA16(_ image: ip_image) throws -> [UInt16] {
        let width = Int(image.width), height = Int(image.height)
        if image.format == IP_PIXEL_RGBA16, image.alpha_mode != IP_ALPHA_PREMULTIPLIED, let pixels = image.pixels {
            guard width > 0, height > 0, Int(image.stride) >= width * 8 else {
                throw PluginFailure.invalidData("a \(width)x\(height) RGBA16 image with stride \(image.stride)")
            }
            var samples = [UInt16](repeating: 0, count: width * height * 4)
            for y in 0..<height {
                let row = UnsafeRawPointer(pixels + y * Int(image.stride))
                for index in 0..<(width * 4) {
                    let value = row.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self)
                    samples[y * width * 4 + index] = index % 4 == 3 && image.alpha_mode == IP_ALPHA_NONE ? 0xFFFF : value
                }
            }
            return samples
        }
        return try PixelConversion.straightRGBA8(image).map { UInt16($0) * 257 }
    }
}
