import CAVIF
import Glibc
import PluginAPI
import PluginKit

/// Encoding through libavif + aom: one frame makes a still image (avif brand), several an image sequence (avis).
enum AVIFEncoding {
    /// Sequence timescale: milliseconds, so frame durations from the ABI are stored exactly.
    static let timescale: UInt64 = 1000
    /// A frame without a duration is shown for 100 ms (the usual convention for 0 in GIF and WebP).
    static let defaultFrameMilliseconds: UInt64 = 100

    static func encode(
        frames: UnsafePointer<UnsafePointer<ip_image>?>?, count: UInt32, options: UnsafePointer<ip_encode_options>?,
        call: OpaquePointer?, sink: UnsafePointer<ip_byte_sink>?
    ) throws {
        let (frames, sink) = try EncodeInput.check(frames: frames, count: count, sink: sink)
        let write = sink.pointee.write!
        let images = frames
        let settings = try AVIFEncodeSettings(options)
        let first = images[0]
        for image in images { try validate(image, sameSizeAs: first) }
        // Alpha is written when any frame has a visible alpha value; all frames of a sequence must agree.
        let writeAlpha = images.contains { $0.alpha_mode != IP_ALPHA_NONE && !isOpaque($0) }

        guard let encoder = avifEncoderCreate() else { throw PluginFailure(IP_STATUS_NO_MEMORY, "libavif could not create an encoder") }
        defer { avifEncoderDestroy(encoder) }
        if avifCodecName(AVIF_CODEC_CHOICE_AOM, AVIF_CODEC_FLAG_CAN_ENCODE.rawValue) != nil {
            encoder.pointee.codecChoice = AVIF_CODEC_CHOICE_AOM
        }
        encoder.pointee.maxThreads = Int32(clamping: max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        encoder.pointee.speed = Int32(settings.speed)
        encoder.pointee.minQuantizer = settings.quantizer
        encoder.pointee.maxQuantizer = settings.quantizer
        encoder.pointee.minQuantizerAlpha = settings.quantizer
        encoder.pointee.maxQuantizerAlpha = settings.quantizer
        encoder.pointee.timescale = timescale

        // The metadata the host asked to embed goes on the first image: libavif writes it from there as Exif and
        // mime (XMP) items of the file. Its Orientation is already 1, so libavif derives no irot/imir from it.
        let metadata = EncodeInput.metadata(try EncodeInput.options(options))
        for (index, frame) in images.enumerated() {
            try Host.checkCancellation(call)
            let image = try yuvImage(frame, settings: settings, writeAlpha: writeAlpha)
            defer { avifImageDestroy(image) }
            if index == 0, let metadata {
                metadata.exif?.withUnsafeBufferPointer { avifImageSetMetadataExif(image, $0.baseAddress, $0.count) }
                metadata.xmp?.withUnsafeBufferPointer { avifImageSetMetadataXMP(image, $0.baseAddress, $0.count) }
            }
            let single = images.count == 1
            let duration = frame.duration_ms > 0 ? UInt64(frame.duration_ms) : defaultFrameMilliseconds
            let result = avifEncoderAddImage(
                encoder, image, single ? 1 : duration,
                single ? AVIF_ADD_IMAGE_FLAG_SINGLE.rawValue : AVIF_ADD_IMAGE_FLAG_NONE.rawValue)
            try check(result, encoder, "to encode frame \(index)")
        }
        try Host.checkCancellation(call)
        var output = avifRWData()
        try check(avifEncoderFinish(encoder, &output), encoder, "to finish the file")
        defer { avifRWDataFree(&output) }
        let status = write(sink.pointee.context, output.data, output.size)
        guard status == ip_status(IP_STATUS_OK) else {
            throw PluginFailure(status, "the output sink refused \(output.size) bytes")
        }
    }

    /// A libavif YUV image converted from `frame` (borrowed: avifRGBImage points at the host's pixels).
    private static func yuvImage(
        _ frame: ip_image, settings: AVIFEncodeSettings, writeAlpha: Bool
    ) throws -> UnsafeMutablePointer<avifImage> {
        let sixteenBit = frame.format == IP_PIXEL_RGBA16
        let depth = try settings.depth(forSixteenBitInput: sixteenBit)
        guard let image = avifImageCreate(frame.width, frame.height, depth, settings.yuvFormat) else {
            throw PluginFailure(IP_STATUS_NO_MEMORY, "libavif could not create a \(frame.width)x\(frame.height) image")
        }
        // sRGB as avifenc writes it: BT.709 primaries, sRGB transfer, BT.601 matrix (identity when lossless), unless
        // the frame states its own colour (a kept profile or CICP).
        image.pointee.colorPrimaries = avifColorPrimaries(AVIF_COLOR_PRIMARIES_BT709)
        image.pointee.transferCharacteristics = avifTransferCharacteristics(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
        image.pointee.matrixCoefficients = avifMatrixCoefficients(
            settings.lossless ? AVIF_MATRIX_COEFFICIENTS_IDENTITY : AVIF_MATRIX_COEFFICIENTS_BT601)
        image.pointee.yuvRange = AVIF_RANGE_FULL
        AVIFColor.apply(ColorFacts(encoding: frame), to: image)
        let premultiplied = writeAlpha && frame.alpha_mode == IP_ALPHA_PREMULTIPLIED
        // A premultiplied input is stored premultiplied (with the prem box), so nothing is lost to un-premultiplying.
        image.pointee.alphaPremultiplied = premultiplied ? AVIF_TRUE : AVIF_FALSE
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.depth = sixteenBit ? 16 : 8
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.ignoreAlpha = writeAlpha ? AVIF_FALSE : AVIF_TRUE
        rgb.alphaPremultiplied = premultiplied ? AVIF_TRUE : AVIF_FALSE
        rgb.pixels = frame.pixels
        rgb.rowBytes = frame.stride
        let result = avifImageRGBToYUV(image, &rgb)
        guard result == AVIF_RESULT_OK else {
            avifImageDestroy(image)
            throw PluginFailure.internalError("libavif could not convert RGB to YUV: " + String(cString: avifResultToString(result)))
        }
        return image
    }

    private static func validate(_ image: ip_image, sameSizeAs first: ip_image) throws {
        _ = try EncodeInput.rgbaLayout(image, encoder: "AVIF")
        guard image.width == first.width, image.height == first.height else {
            throw PluginFailure.invalidData(
                "all frames of an AVIF sequence have one size: \(image.width)x\(image.height) after \(first.width)x\(first.height)")
        }
    }

    /// True when every alpha value is the maximum (then no alpha plane is written).
    private static func isOpaque(_ image: ip_image) -> Bool {
        guard let pixels = image.pixels else { return true }
        let sixteenBit = image.format == IP_PIXEL_RGBA16
        for y in 0..<Int(image.height) {
            let row = UnsafeRawPointer(pixels + y * Int(image.stride))
            for x in 0..<Int(image.width) {
                if sixteenBit {
                    if row.loadUnaligned(fromByteOffset: x * 8 + 6, as: UInt16.self) != 0xFFFF { return false }
                } else if row.load(fromByteOffset: x * 4 + 3, as: UInt8.self) != 0xFF {
                    return false
                }
            }
        }
        return true
    }

    private static func check(_ result: avifResult, _ encoder: UnsafeMutablePointer<avifEncoder>, _ stage: String) throws {
        guard result != AVIF_RESULT_OK else { return }
        let diagnostics = withUnsafeBytes(of: encoder.pointee.diag.error) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let message = "libavif failed \(stage): " + String(cString: avifResultToString(result))
            + (diagnostics.isEmpty ? "" : " (\(diagnostics))")
        switch result {
        case AVIF_RESULT_OUT_OF_MEMORY: throw PluginFailure(IP_STATUS_NO_MEMORY, message)
        case AVIF_RESULT_NO_CODEC_AVAILABLE, AVIF_RESULT_UNSUPPORTED_DEPTH, AVIF_RESULT_NOT_IMPLEMENTED:
            throw PluginFailure.unsupported(message)
        default: throw PluginFailure.internalError(message)
        }
    }
}
