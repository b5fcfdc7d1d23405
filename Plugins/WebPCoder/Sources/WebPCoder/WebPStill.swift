import CWebP
import PluginAPI
import PluginKit

/// One-shot decoding of a still WebP (lossy, lossless, with or without alpha) into a host buffer, at full size or
/// shrunk on load by libwebp's scaler.
enum WebPStill {
    /// Decodes `data` into a new host buffer of `size` (the source size or a smaller scaled size).
    static func decode(_ data: UnsafeBufferPointer<UInt8>, inspection: WebPInspection, size: (width: Int, height: Int),
                       threads: UInt32, call: OpaquePointer?) throws -> ip_image {
        var output = try Host.allocatePixels(call, width: size.width, height: size.height, format: IP_PIXEL_RGBA8)
        guard let pixels = output.pixels else { throw PluginFailure.internalError("host returned no pixels") }
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw PluginFailure.internalError("libwebp version mismatch") }
        configure(&config, inspection: inspection, size: size, threads: threads)
        config.output.is_external_memory = 1
        config.output.u.RGBA.rgba = pixels
        config.output.u.RGBA.stride = Int32(output.stride)
        config.output.u.RGBA.size = Int(output.stride) * size.height
        try Host.checkCancellation(call)
        let status = WebPDecode(data.baseAddress, data.count, &config)
        WebPFreeDecBuffer(&config.output)
        guard status == VP8_STATUS_OK else { throw WebPFailure.from(status, "decoding the image") }
        try Host.checkCancellation(call)
        output.alpha_mode = ip_alpha_mode(inspection.hasAlpha ? IP_ALPHA_STRAIGHT : IP_ALPHA_NONE)
        output.duration_ms = 0
        output.index = 0
        return output
    }

    /// RGBA with straight alpha, libwebp's "fancy" upsampling of lossy chroma (its default, as dwebp), scaling
    /// when `size` is not the source size.
    static func configure(_ config: inout WebPDecoderConfig, inspection: WebPInspection,
                          size: (width: Int, height: Int), threads: UInt32) {
        config.output.colorspace = MODE_RGBA
        config.options.use_threads = threads == 1 ? 0 : 1
        if size.width != inspection.width || size.height != inspection.height {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(size.width)
            config.options.scaled_height = Int32(size.height)
        }
    }
}
