import JPEGCodec
import PluginAPI
import PluginKit

/// Encoding: Swift validates the borrowed image and the options, JPEGCodec converts rows and runs libjpeg.
///
/// The ABI has no chroma-subsampling field, so it follows the quality: 4:2:0 below 90 (libjpeg's default, the
/// usual web trade-off), 4:4:4 from 90 up (where colour edges would otherwise be the largest visible error).
enum JPEGEncoding {
    /// Quality when the caller states none (ip_encode_options.quality == 0).
    static let defaultQuality: UInt32 = 85
    /// From this quality up, chroma is not subsampled.
    static let fullChromaQuality: UInt32 = 90

    /// Writes frames[0] as a JPEG (a still format: further frames are ignored). Alpha is dropped.
    static func encode(
        frames: UnsafePointer<UnsafePointer<ip_image>?>?, count: UInt32, options: UnsafePointer<ip_encode_options>?,
        call: OpaquePointer?, sink: UnsafePointer<ip_byte_sink>?
    ) throws {
        let (frames, sink) = try EncodeInput.check(frames: frames, count: count, sink: sink)
        let image = frames[0]
        let settings = try EncodeSettings(options)
        let (pixels, input16) = try EncodeInput.rgbaLayout(image, encoder: "JPEG")
        let profile = ColorFacts(encoding: image).icc ?? []
        // A block that does not fit one APP1 segment is left out (Extended XMP, which splits a packet, is not written).
        let metadata = EncodeInput.metadata(try EncodeInput.options(options))
        let exif = metadata?.exif.flatMap { $0.count <= Int(JPEGC_MAX_EXIF_BYTES) ? $0 : nil } ?? []
        let xmp = metadata?.xmp.flatMap { $0.count <= Int(JPEGC_MAX_XMP_BYTES) ? $0 : nil } ?? []
        try profile.withUnsafeBufferPointer { icc in
        try exif.withUnsafeBufferPointer { exifBytes in
        try xmp.withUnsafeBufferPointer { xmpBytes in
        var parameters = jpegc_encode_params(
            pixels: UnsafePointer(pixels), width: image.width, height: image.height, stride: Int(image.stride),
            input16: input16 ? 1 : 0,
            premultiplied: image.alpha_mode == IP_ALPHA_PREMULTIPLIED ? 1 : 0,
            quality: Int32(settings.quality),
            progressive: settings.progressive ? 1 : 0,
            full_chroma: settings.quality >= fullChromaQuality ? 1 : 0,
            optimize_coding: settings.speed >= 8 ? 0 : 1,
            icc_profile: icc.isEmpty ? nil : icc.baseAddress, icc_size: UInt32(icc.count),
            exif: exifBytes.isEmpty ? nil : exifBytes.baseAddress, exif_size: UInt32(exifBytes.count),
            xmp: xmpBytes.isEmpty ? nil : xmpBytes.baseAddress, xmp_size: UInt32(xmpBytes.count),
            sink: sink,
            cancelled: CodecCall.cancellationCallback,
            cancel_context: call.map { UnsafeMutableRawPointer($0) })
        try codecCall { message in jpegc_encode(&parameters, message) }
        }
        }
        }
    }
}

/// The encode options JPEG uses, read within the host's struct_size.
struct EncodeSettings {
    var quality = JPEGEncoding.defaultQuality
    var speed: UInt32 = 0
    var progressive = false

    init(_ options: UnsafePointer<ip_encode_options>?) throws {
        guard let options else { return }
        let copy = try EncodeInput.options(options)
        if copy.flags & UInt32(IP_ENCODE_LOSSLESS) != 0 {
            throw PluginFailure.unsupported("lossless JPEG is not supported (libjpeg-turbo 2.1 has no lossless mode)")
        }
        if copy.bit_depth != 0 && copy.bit_depth != 8 {
            throw PluginFailure.unsupported("this libjpeg-turbo build writes 8-bit JPEG only, not \(copy.bit_depth)-bit")
        }
        if copy.quality > 0 { quality = min(copy.quality, 100) }
        speed = min(copy.speed, 10)
        progressive = copy.flags & UInt32(IP_ENCODE_PROGRESSIVE) != 0
    }
}
