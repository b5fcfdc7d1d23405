import PNGCodec
import PluginAPI
import PluginKit

/// Encoding: Swift validates the borrowed image and the options, PNGCodec converts and filters rows and deflates them
/// (libdeflate; libpng for interlaced output).
enum PNGEncoding {
    /// zlib level of the interlaced (libpng) path when the caller states no speed: libpng's and zlib's usual default.
    /// (The non-interlaced writer maps `speed` onto libdeflate levels itself: see pngc_deflate_level.)
    static let defaultCompressionLevel: Int32 = 6

    /// Writes frames[0] as a PNG (a PNG is a still image; further frames are ignored).
    static func encode(
        frames: UnsafePointer<UnsafePointer<ip_image>?>?, count: UInt32, options: UnsafePointer<ip_encode_options>?,
        call: OpaquePointer?, sink: UnsafePointer<ip_byte_sink>?
    ) throws {
        let (frames, sink) = try EncodeInput.check(frames: frames, count: count, sink: sink)
        let image = frames[0]
        let settings = try EncodeSettings(options)
        let (pixels, input16) = try EncodeInput.rgbaFormat(image, encoder: "PNG")
        let output16: Bool
        switch settings.bitDepth {
        case 0: output16 = input16
        case 8: output16 = false
        case 9...16: output16 = true  // PNG has no 10- or 12-bit samples; 16 keeps every bit.
        default: throw PluginFailure.unsupported("the PNG encoder writes 8 or 16 bits per channel, not \(settings.bitDepth)")
        }
        try EncodeInput.checkRowFitsStride(image, sixteenBit: input16)
        let profile = ColorFacts(encoding: image).icc ?? []
        let metadata = EncodeInput.metadata(try EncodeInput.options(options))
        let exif = metadata?.exif ?? []
        // iTXt as XMP's specification stores a packet in PNG: keyword XML:com.adobe.xmp, uncompressed, no language.
        let itxt = metadata?.xmp.map { Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + $0 } ?? []
        try profile.withUnsafeBufferPointer { icc in
        try exif.withUnsafeBufferPointer { exifBytes in
        try itxt.withUnsafeBufferPointer { itxtBytes in
        var parameters = pngc_encode_params(
            pixels: UnsafePointer(pixels), width: image.width, height: image.height, stride: Int(image.stride),
            input16: input16 ? 1 : 0,
            premultiplied: image.alpha_mode == IP_ALPHA_PREMULTIPLIED ? 1 : 0,
            write_alpha: image.alpha_mode == IP_ALPHA_NONE ? 0 : 1,
            output16: output16 ? 1 : 0,
            compression_level: settings.compressionLevel,
            fast_filters: settings.speed >= 8 ? 1 : 0,
            interlace: settings.progressive ? 1 : 0,
            speed: Int32(settings.speed),
            icc_profile: icc.isEmpty ? nil : icc.baseAddress, icc_size: UInt32(icc.count),
            exif: exifBytes.isEmpty ? nil : exifBytes.baseAddress, exif_size: UInt32(exifBytes.count),
            itxt: itxtBytes.isEmpty ? nil : itxtBytes.baseAddress, itxt_size: UInt32(itxtBytes.count),
            sink: sink,
            cancelled: CodecCall.cancellationCallback,
            cancel_context: call.map { UnsafeMutableRawPointer($0) })
        try codecCall { message in pngc_encode(&parameters, message) }
        }
        }
        }
    }
}

/// The encode options PNG uses, read within the host's struct_size (quality does not apply: PNG is lossless).
struct EncodeSettings {
    var speed: UInt32 = 0
    var bitDepth: UInt32 = 0
    var progressive = false

    init(_ options: UnsafePointer<ip_encode_options>?) throws {
        guard let options else { return }
        let copy = try EncodeInput.options(options)
        speed = min(copy.speed, 10)
        bitDepth = copy.bit_depth
        progressive = copy.flags & UInt32(IP_ENCODE_PROGRESSIVE) != 0
    }

    /// The interlaced path's zlib level: speed 0 = default level 6; 1 (slowest, smallest) → 9 … 9 and 10 (fastest) → 1.
    var compressionLevel: Int32 {
        speed == 0 ? PNGEncoding.defaultCompressionLevel : Int32(max(1, 10 - Int(speed)))
    }
}
