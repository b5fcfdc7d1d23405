import CHEIF
import PluginAPI
import PluginKit

/// Encodes HEIC through libheif's HEVC encoder (x265 in Debian's libheif1 1.15).
///
/// Each frame becomes a top-level image, the first being the primary one, so what decode() reads as pages
/// round-trips. Options: quality 1...100 (0 = 80); speed 1...10 picks an x265 preset from placebo to
/// ultrafast (0 = libheif's default, "slow"); bit_depth 8, 10 or 12 (0 = 8 for RGBA8 input, 10 for RGBA16);
/// IP_ENCODE_LOSSLESS = x265 lossless on 4:4:4 with the identity (GBR) matrix, so RGB survives exactly.
enum HEIFEncoding {
    static let defaultQuality: Int32 = 80
    /// speed 1 (slowest) ... 10 (fastest).
    static let presets = ["placebo", "veryslow", "slower", "slow", "medium", "fast", "faster", "veryfast", "superfast", "ultrafast"]

    static func encode(
        frames: UnsafePointer<UnsafePointer<ip_image>?>?, count: UInt32, options: UnsafePointer<ip_encode_options>?,
        call: OpaquePointer?, sink: UnsafePointer<ip_byte_sink>?
    ) throws {
        let (frames, sink) = try EncodeInput.check(frames: frames, count: count, sink: sink)
        let settings = try readOptions(options)
        LibHEIF.ensureInitialised()
        guard let context = heif_context_alloc() else { throw PluginFailure(IP_STATUS_NO_MEMORY, "libheif could not allocate a context") }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try HEIFFailure.check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder), "finding an HEVC encoder")
        guard let encoder else { throw PluginFailure.unsupported("libheif has no HEVC encoder here") }
        defer { heif_encoder_release(encoder) }
        try configure(encoder, settings)

        guard let encoding = heif_encoding_options_alloc() else { throw PluginFailure(IP_STATUS_NO_MEMORY, "libheif could not allocate encoding options") }
        defer { heif_encoding_options_free(encoding) }
        let nclx = settings.lossless ? heif_nclx_color_profile_alloc() : nil
        defer { if let nclx { heif_nclx_color_profile_free(nclx) } }
        if let nclx {
            // Identity matrix: the encoder codes G, B, R planes as they are, with no RGB → YCbCr rounding.
            nclx.pointee.matrix_coefficients = heif_matrix_coefficients_RGB_GBR
            nclx.pointee.color_primaries = heif_color_primaries_ITU_R_BT_709_5
            nclx.pointee.transfer_characteristics = heif_transfer_characteristic_IEC_61966_2_1
            nclx.pointee.full_range_flag = 1
            encoding.pointee.output_nclx_profile = nclx
        }

        for index in 0..<Int(count) {
            try Host.checkCancellation(call)
            let frame = frames[index]
            let bits = try outputBits(settings.bitDepth, frame)
            let image = try HEIFImageBuilder.make(from: frame, bits: bits, call: call)
            defer { heif_image_release(image) }
            // libheif 1.15 converts RGB → YCbCr with the input image's profile, so the identity matrix goes there too.
            let stated = try HEIFColor.apply(ColorFacts(encoding: frame), to: image)
            defer { if let stated { heif_nclx_color_profile_free(stated) } }
            if let nclx, let stated {
                nclx.pointee.color_primaries = stated.pointee.color_primaries
                nclx.pointee.transfer_characteristics = stated.pointee.transfer_characteristics
            }
            // A frame's own CICP (a kept PQ image) is written as it is; otherwise sRGB (or the lossless identity).
            encoding.pointee.output_nclx_profile = nclx ?? stated
            if let profile = nclx ?? stated {
                try HEIFFailure.check(heif_image_set_nclx_color_profile(image, profile), "setting the colour profile")
            }
            encoding.pointee.save_alpha_channel = frame.alpha_mode == IP_ALPHA_NONE ? 0 : 1
            var handle: OpaquePointer?
            try HEIFFailure.check(heif_context_encode_image(context, image, encoder, encoding, &handle), "encoding frame \(index)")
            if let handle {
                defer { heif_image_handle_release(handle) }
                if index == 0 { try addMetadata(options, to: handle, in: context) }
            }
        }
        try Host.checkCancellation(call)
        try write(context, to: sink)
    }

    /// The Exif and XMP the host asked to embed, as metadata items of the primary image (libheif writes Exif's
    /// four-byte offset word before the block itself).
    private static func addMetadata(_ options: UnsafePointer<ip_encode_options>?, to handle: OpaquePointer, in context: OpaquePointer) throws {
        guard let options, let metadata = EncodeInput.metadata(try EncodeInput.options(options)) else { return }
        if let exif = metadata.exif {
            try exif.withUnsafeBytes {
                try HEIFFailure.check(heif_context_add_exif_metadata(context, handle, $0.baseAddress, Int32($0.count)), "adding the Exif block")
            }
        }
        if let xmp = metadata.xmp {
            try xmp.withUnsafeBytes {
                try HEIFFailure.check(heif_context_add_XMP_metadata(context, handle, $0.baseAddress, Int32($0.count)), "adding the XMP packet")
            }
        }
    }

    struct Settings {
        var quality: UInt32 = 0
        var speed: UInt32 = 0
        var bitDepth: UInt32 = 0
        var lossless = false
    }

    /// Reads only what the host's struct_size covers; the rest keeps its zero default.
    static func readOptions(_ options: UnsafePointer<ip_encode_options>?) throws -> Settings {
        guard let options else { return Settings() }
        let copy = try EncodeInput.options(options)
        return Settings(quality: copy.quality, speed: copy.speed, bitDepth: copy.bit_depth,
                        lossless: copy.flags & UInt32(IP_ENCODE_LOSSLESS) != 0)
    }

    private static func configure(_ encoder: OpaquePointer, _ settings: Settings) throws {
        let quality = settings.quality == 0 ? defaultQuality : Int32(min(settings.quality, 100))
        try HEIFFailure.check(heif_encoder_set_lossy_quality(encoder, quality), "setting quality \(quality)")
        if settings.lossless {
            try HEIFFailure.check(heif_encoder_set_lossless(encoder, 1), "enabling lossless coding")
            try HEIFFailure.check(heif_encoder_set_parameter(encoder, "chroma", "444"), "choosing 4:4:4 chroma")
        }
        if settings.speed > 0 {
            let preset = presets[Int(min(settings.speed, 10)) - 1]
            try HEIFFailure.check(heif_encoder_set_parameter(encoder, "preset", preset), "choosing x265 preset \(preset)")
        }
    }

    private static func outputBits(_ requested: UInt32, _ frame: ip_image) throws -> Int {
        switch requested {
        case 0: return frame.format == IP_PIXEL_RGBA16 ? 10 : 8
        case 8, 10, 12: return Int(requested)
        default: throw PluginFailure.unsupported("HEIC (HEVC) holds 8, 10 or 12 bits per channel, not \(requested)")
        }
    }

    /// Hands libheif's output to the host's sink; a sink failure stops the write and is rethrown with its status.
    private static func write(_ context: OpaquePointer, to sink: UnsafePointer<ip_byte_sink>) throws {
        final class Target {
            let sink: UnsafePointer<ip_byte_sink>
            var status = ip_status(IP_STATUS_OK)
            init(_ sink: UnsafePointer<ip_byte_sink>) { self.sink = sink }
        }
        let target = Target(sink)
        var writer = heif_writer(writer_api_version: 1, write: { _, data, size, userdata in
            let target = Unmanaged<Target>.fromOpaque(userdata!).takeUnretainedValue()
            let status = target.sink.pointee.write(target.sink.pointee.context, data?.assumingMemoryBound(to: UInt8.self), size)
            target.status = status
            return status == ip_status(IP_STATUS_OK)
                ? heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: WriterMessages.ok.pointer)
                : heif_error(code: heif_error_Encoding_error, subcode: heif_suberror_Cannot_write_output_data, message: WriterMessages.failed.pointer)
        })
        let error = withExtendedLifetime(target) {
            heif_context_write(context, &writer, Unmanaged.passUnretained(target).toOpaque())
        }
        if target.status != ip_status(IP_STATUS_OK) {
            throw PluginFailure(target.status, "the output sink refused the encoded bytes (status \(target.status))")
        }
        try HEIFFailure.check(error, "writing the file")
    }
}

/// Static C strings for heif_error values returned from the writer callback (libheif keeps the pointer).
private enum WriterMessages {
    static let ok = StaticTable(StaticStorage.cString("Success"))
    static let failed = StaticTable(StaticStorage.cString("the output sink refused the bytes"))
}
