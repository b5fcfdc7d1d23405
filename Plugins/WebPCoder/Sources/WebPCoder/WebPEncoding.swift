import CWebP
import PluginAPI
import PluginKit

/// Encoding: one frame → a still WebP (`WebPEncode` with a `WebPConfig`), several → an animation
/// (`WebPAnimEncoder` from libwebpmux). Lossy by default, lossless with `IP_ENCODE_LOSSLESS`.
///
/// - quality 1-100 (0 = 75, cwebp's default) is the lossy quality; for lossless, `speed` picks libwebp's
///   lossless preset (level 10 - speed, default 6).
/// - speed 1-10 (0 = method 4, cwebp's default) maps to method 6 (slowest, smallest) … 0 (fastest).
/// - Animation: `loop_count` is written as is (WebP counts plays, 0 = forever, like the ABI); each frame's
///   duration becomes its timestamp step (0 → 100 ms, the duration browsers give a frame of 0); frames must share
///   the first frame's size; libwebp picks sub-rectangles and blending itself.
/// - Alpha is kept when the input has any non-opaque pixel (libwebp drops an all-opaque alpha plane).
enum WebPEncoding {
    static let maxDimension = Int(WEBP_MAX_DIMENSION)

    static func encode(
        frames: UnsafePointer<UnsafePointer<ip_image>?>?, count: UInt32, options: UnsafePointer<ip_encode_options>?,
        call: OpaquePointer?, sink: UnsafePointer<ip_byte_sink>?
    ) throws {
        let (frames, sink) = try EncodeInput.check(frames: frames, count: count, sink: sink)
        let settings = try WebPEncodeSettings(options)
        let width = Int(frames[0].width), height = Int(frames[0].height)
        guard width > 0, height > 0, width <= maxDimension, height <= maxDimension else {
            throw PluginFailure.unsupported("WebP images are 1 to \(maxDimension) pixels per side, not \(width)x\(height)")
        }
        for i in 0..<Int(count) where Int(frames[i].width) != width || Int(frames[i].height) != height {
            throw PluginFailure.invalidData("frame \(i) is \(frames[i].width)x\(frames[i].height); every frame must be \(width)x\(height)")
        }
        var config = try settings.config()
        let output = WebPOutput(sink: sink, call: call)
        let chunks = WebPChunks.list(icc: ColorFacts(encoding: frames[0]).icc, metadata: EncodeInput.metadata(try EncodeInput.options(options)))
        try withExtendedLifetime(output) {
            if count == 1, !chunks.isEmpty {
                try encodeStillWithChunks(frames[0], chunks: chunks, config: &config, output: output)
            } else if count == 1 {
                try encodeStill(frames[0], config: &config, output: output)
            } else {
                try encodeAnimation(frames, count: Int(count), config: &config, loopCount: settings.loopCount, chunks: chunks, output: output)
            }
        }
    }

    private static func encodeStill(_ image: ip_image, config: inout WebPConfig, output: WebPOutput) throws {
        var picture = try makePicture(image, lossless: config.lossless != 0)
        defer { WebPPictureFree(&picture) }
        picture.writer = webpSinkWrite
        picture.custom_ptr = output.context
        picture.progress_hook = webpProgress
        if WebPEncode(&config, &picture) == 0 {
            if let failure = output.failure { throw failure }
            if picture.error_code == VP8_ENC_ERROR_USER_ABORT { throw PluginFailure.cancelled }
            throw PluginFailure.internalError("libwebp could not encode the image (error \(picture.error_code.rawValue))")
        }
    }

    /// A still image with ICCP, EXIF or XMP chunks: encoded into memory, then given the chunks by libwebpmux (the
    /// direct path streams VP8/VP8L bytes to the sink and has no room for a VP8X header before them).
    private static func encodeStillWithChunks(_ image: ip_image, chunks: [(fourCC: String, bytes: [UInt8])], config: inout WebPConfig,
                                               output: WebPOutput) throws {
        var picture = try makePicture(image, lossless: config.lossless != 0)
        defer { WebPPictureFree(&picture) }
        var memory = WebPMemoryWriter()
        WebPMemoryWriterInit(&memory)
        defer { WebPMemoryWriterClear(&memory) }
        try withUnsafeMutablePointer(to: &memory) { writer in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(writer)
            picture.progress_hook = webpProgressInMemory
            picture.user_data = output.context
            if WebPEncode(&config, &picture) == 0 {
                if picture.error_code == VP8_ENC_ERROR_USER_ABORT { throw PluginFailure.cancelled }
                throw PluginFailure.internalError("libwebp could not encode the image (error \(picture.error_code.rawValue))")
            }
        }
        var encoded = WebPData(bytes: memory.mem, size: memory.size)
        try WebPChunks.write(&encoded, chunks: chunks, output: output)
    }

    private static func encodeAnimation(_ frames: [ip_image], count: Int, config: inout WebPConfig,
                                        loopCount: UInt32, chunks: [(fourCC: String, bytes: [UInt8])], output: WebPOutput) throws {
        var options = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&options) != 0 else { throw PluginFailure.internalError("libwebpmux version mismatch") }
        options.anim_params.loop_count = Int32(min(loopCount, 65535))
        guard let encoder = WebPAnimEncoderNew(Int32(frames[0].width), Int32(frames[0].height), &options) else {
            throw PluginFailure(IP_STATUS_NO_MEMORY, "libwebpmux could not start an animation encoder")
        }
        defer { WebPAnimEncoderDelete(encoder) }
        var timestamp = 0
        for i in 0..<count {
            try Host.checkCancellation(output.call)
            var picture = try makePicture(frames[i], lossless: config.lossless != 0)
            defer { WebPPictureFree(&picture) }
            picture.custom_ptr = output.context
            picture.progress_hook = webpProgress
            guard WebPAnimEncoderAdd(encoder, &picture, Int32(clamping: timestamp), &config) != 0 else {
                if picture.error_code == VP8_ENC_ERROR_USER_ABORT { throw PluginFailure.cancelled }
                throw PluginFailure.internalError("libwebpmux refused frame \(i): \(animationError(encoder))")
            }
            let duration = Int(frames[i].duration_ms)
            timestamp += duration == 0 ? 100 : duration
        }
        guard WebPAnimEncoderAdd(encoder, nil, Int32(clamping: timestamp), nil) != 0 else {
            throw PluginFailure.internalError("libwebpmux could not finish the animation: \(animationError(encoder))")
        }
        var data = WebPData()
        guard WebPAnimEncoderAssemble(encoder, &data) != 0 else {
            throw PluginFailure.internalError("libwebpmux could not assemble the animation: \(animationError(encoder))")
        }
        defer { WebPDataClear(&data) }
        if !chunks.isEmpty {
            try WebPChunks.write(&data, chunks: chunks, output: output)
        } else {
            try output.write(UnsafeBufferPointer(start: data.bytes, count: data.size))
        }
    }

    /// A picture holding a straight-RGBA copy of `image` (ARGB internally, as both encoders want for alpha and
    /// lossless).
    private static func makePicture(_ image: ip_image, lossless: Bool) throws -> WebPPicture {
        let rgba = try PixelConversion.straightRGBA8(image)
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw PluginFailure.internalError("libwebp version mismatch") }
        picture.width = Int32(image.width)
        picture.height = Int32(image.height)
        picture.use_argb = 1
        let imported = rgba.withUnsafeBufferPointer { WebPPictureImportRGBA(&picture, $0.baseAddress, Int32(image.width) * 4) }
        guard imported != 0 else {
            WebPPictureFree(&picture)
            throw PluginFailure(IP_STATUS_NO_MEMORY, "libwebp could not allocate a \(image.width)x\(image.height) picture")
        }
        return picture
    }

    private static func animationError(_ encoder: OpaquePointer) -> String {
        WebPAnimEncoderGetError(encoder).map { String(cString: $0) } ?? "unknown error"
    }
}

/// The encode options WebP uses, read within the host's struct_size.
struct WebPEncodeSettings {
    var quality: UInt32 = 0
    var speed: UInt32 = 0
    var lossless = false
    var loopCount: UInt32 = 0

    init(_ options: UnsafePointer<ip_encode_options>?) throws {
        guard let options else { return }
        let copy = try EncodeInput.options(options)
        quality = min(copy.quality, 100)
        speed = min(copy.speed, 10)
        lossless = copy.flags & UInt32(IP_ENCODE_LOSSLESS) != 0
        loopCount = copy.loop_count
    }

    func config() throws -> WebPConfig {
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { throw PluginFailure.internalError("libwebp version mismatch") }
        if lossless {
            let level = speed == 0 ? 6 : Int32(10 - speed)
            guard WebPConfigLosslessPreset(&config, level) != 0 else { throw PluginFailure.internalError("bad lossless level \(level)") }
        } else {
            config.quality = Float(quality == 0 ? 75 : quality)
            if speed > 0 { config.method = Int32(6 - (Int(speed) - 1) * 6 / 9) }
        }
        guard WebPValidateConfig(&config) != 0 else { throw PluginFailure.internalError("libwebp rejected the encoder settings") }
        return config
    }
}
