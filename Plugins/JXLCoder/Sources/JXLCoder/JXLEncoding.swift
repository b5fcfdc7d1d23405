import CJXL
import PluginAPI
import PluginKit

/// Encoding with libjxl: one frame → a still image, several → an animation (millisecond ticks; each frame's
/// duration as given, 0 → 100 ms as browsers show it). Lossy by default (VarDCT at a butteraugli distance),
/// lossless (modular, the original colour profile kept) with `IP_ENCODE_LOSSLESS`.
///
/// - quality 1-100 (0 = distance 1.0, cjxl's default) → distance as cjxl 0.7 maps it: q ≥ 30 → 0.1 + (100 − q) × 0.09,
///   below → 6.4 + 2.5^((30 − q) / 5) / 6.25; quality 100 is lossless.
/// - speed 1-10 (0 = effort 7, cjxl's default) → effort 10 − speed, clamped to libjxl's 1…9.
/// - bit depth: 16 for RGBA16 input (or `bit_depth` 9…16), else 8. Alpha is written only when some pixel is not
///   opaque; the ICC profile the frame carries is embedded, else the pixels are declared sRGB.
enum JXLEncoding {
    static let maxDimension = 1 << 20

    static func encode(
        frames: UnsafePointer<UnsafePointer<ip_image>?>?, count: UInt32, options: UnsafePointer<ip_encode_options>?,
        call: OpaquePointer?, sink: UnsafePointer<ip_byte_sink>?
    ) throws {
        let (frames, sink) = try EncodeInput.check(frames: frames, count: count, sink: sink)
        let settings = try EncodeInput.options(options)
        let width = Int(frames[0].width), height = Int(frames[0].height)
        guard width > 0, height > 0, width <= maxDimension, height <= maxDimension else {
            throw PluginFailure.unsupported("this encoder writes JPEG XL images of 1 to \(maxDimension) pixels per side, not \(width)x\(height)")
        }
        for i in 0..<frames.count where Int(frames[i].width) != width || Int(frames[i].height) != height {
            throw PluginFailure.invalidData("frame \(i) is \(frames[i].width)x\(frames[i].height); every frame must be \(width)x\(height)")
        }
        let sixteen = try frames.contains { try EncodeInput.rgbaFormat($0, encoder: "JPEG XL").sixteenBit }
            || (9...16).contains(settings.bit_depth)
        let rows = try frames.map { try JXLPixels(image: $0, sixteenBit: sixteen) }
        let alpha = rows.contains { $0.hasTransparency }
        let lossless = settings.flags & UInt32(IP_ENCODE_LOSSLESS) != 0 || settings.quality >= 100

        guard let encoder = JxlEncoderCreate(nil) else { throw PluginFailure(IP_STATUS_NO_MEMORY, "libjxl could not create an encoder") }
        defer { JxlEncoderDestroy(encoder) }
        let runner = JxlThreadParallelRunnerCreate(nil, JxlThreadParallelRunnerDefaultNumWorkerThreads())
        defer { if let runner { JxlThreadParallelRunnerDestroy(runner) } }
        func check(_ status: JxlEncoderStatus, _ what: String) throws {
            guard status == JXL_ENC_SUCCESS else {
                throw PluginFailure.internalError("libjxl refused \(what) (error \(JxlEncoderGetError(encoder).rawValue))")
            }
        }
        if let runner { try check(JxlEncoderSetParallelRunner(encoder, JxlThreadParallelRunner, runner), "its thread runner") }

        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(width)
        info.ysize = UInt32(height)
        info.bits_per_sample = sixteen ? 16 : 8
        info.num_color_channels = 3
        info.num_extra_channels = alpha ? 1 : 0
        info.alpha_bits = alpha ? info.bits_per_sample : 0
        info.uses_original_profile = lossless ? 1 : 0
        if frames.count > 1 {
            info.have_animation = 1
            info.animation.tps_numerator = 1000
            info.animation.tps_denominator = 1
            info.animation.num_loops = UInt32(max(0, settings.loop_count))
        }
        try check(JxlEncoderSetBasicInfo(encoder, &info), "the basic info")
        if let icc = ColorFacts(encoding: frames[0]).icc {
            try check(JxlEncoderSetICCProfile(encoder, icc, icc.count), "the ICC profile")
        } else {
            var srgb = JxlColorEncoding()
            JxlColorEncodingSetToSRGB(&srgb, 0)
            try check(JxlEncoderSetColorEncoding(encoder, &srgb), "the sRGB colour encoding")
        }
        // The metadata the host asked to embed, as the container's Exif box (a four-byte offset to the TIFF header,
        // 0, then the block) and "xml " box, written before the codestream where readers look first.
        if let metadata = EncodeInput.metadata(settings) {
            try check(JxlEncoderUseContainer(encoder, 1), "the container")
            try check(JxlEncoderUseBoxes(encoder), "metadata boxes")
            if let exif = metadata.exif {
                let box = [0, 0, 0, 0] + exif
                try check(JxlEncoderAddBox(encoder, "Exif", box, box.count, 0), "the Exif box")
            }
            if let xmp = metadata.xmp { try check(JxlEncoderAddBox(encoder, "xml ", xmp, xmp.count, 0), "the XMP box") }
        }
        guard let frameSettings = JxlEncoderFrameSettingsCreate(encoder, nil) else {
            throw PluginFailure(IP_STATUS_NO_MEMORY, "libjxl could not create frame settings")
        }
        if lossless {
            try check(JxlEncoderSetFrameLossless(frameSettings, 1), "lossless mode")
        } else {
            try check(JxlEncoderSetFrameDistance(frameSettings, distance(quality: Int(settings.quality))), "the distance")
        }
        let effort = settings.speed == 0 ? 7 : max(1, min(9, 10 - Int(settings.speed)))
        try check(JxlEncoderFrameSettingsSetOption(frameSettings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(effort)), "the effort")

        var format = JxlPixelFormat(num_channels: alpha ? 4 : 3, data_type: sixteen ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8,
                                    endianness: JXL_NATIVE_ENDIAN, align: 0)
        for (index, pixels) in rows.enumerated() {
            try Host.checkCancellation(call)
            if frames.count > 1 {
                var header = JxlFrameHeader()
                JxlEncoderInitFrameHeader(&header)
                header.duration = frames[index].duration_ms == 0 ? 100 : frames[index].duration_ms
                try check(JxlEncoderSetFrameHeader(frameSettings, &header), "frame \(index)'s header")
            }
            let packed = pixels.packed(withAlpha: alpha)
            try packed.withUnsafeBytes { bytes in
                try check(JxlEncoderAddImageFrame(frameSettings, &format, bytes.baseAddress, bytes.count), "frame \(index)")
            }
        }
        JxlEncoderCloseInput(encoder)
        try drain(encoder, sink: sink, call: call)
    }

    /// cjxl 0.7's mapping from a quality to a butteraugli distance.
    static func distance(quality: Int) -> Float {
        guard quality > 0 else { return 1.0 }
        let q = Double(min(99, quality))
        return Float(q >= 30 ? 0.1 + (100 - q) * 0.09 : 6.4 + pow(2.5, (30 - q) / 5) / 6.25)
    }

    /// Moves the encoder's output to the host's sink in 64 KiB pieces.
    static func drain(_ encoder: OpaquePointer, sink: UnsafePointer<ip_byte_sink>, call: OpaquePointer?) throws {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            try Host.checkCancellation(call)
            let (status, used) = buffer.withUnsafeMutableBufferPointer { chunk -> (JxlEncoderStatus, Int) in
                var next: UnsafeMutablePointer<UInt8>? = chunk.baseAddress
                var available = chunk.count
                let status = JxlEncoderProcessOutput(encoder, &next, &available)
                return (status, chunk.count - available)
            }
            if used > 0 {
                let written = buffer.withUnsafeBufferPointer { sink.pointee.write(sink.pointee.context, $0.baseAddress, used) }
                guard written == ip_status(IP_STATUS_OK) else { throw PluginFailure(written, "the host's sink refused the output") }
            }
            switch status {
            case JXL_ENC_SUCCESS: return
            case JXL_ENC_NEED_MORE_OUTPUT: continue
            default: throw PluginFailure.internalError("libjxl could not encode the image (error \(JxlEncoderGetError(encoder).rawValue))")
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
