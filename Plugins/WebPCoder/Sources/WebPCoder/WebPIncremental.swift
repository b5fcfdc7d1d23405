import CWebP
import PluginAPI
import PluginKit

/// Progressive decoding of a still WebP while its bytes arrive, through libwebp's `WebPIDecoder`.
///
/// The decoder is created once the headers have arrived (so the same shrink-on-load size as a one-shot decode can
/// be set up front, making the final image identical to `decode`'s). Each update hands libwebp all the bytes so
/// far with `WebPIUpdate` (no copy: the host keeps the bytes), then copies the rows decoded so far into a host
/// buffer: rows not yet decoded stay transparent. Before the first row: NEED_MORE.
/// An animated WebP cannot be decoded incrementally by libwebp: it answers NEED_MORE until the last bytes, then
/// returns frame 0.
final class WebPIncrementalSession {
    private let options: DecodeOptionsCopy
    /// Heap-allocated: libwebp keeps a pointer to `config.output` inside the incremental decoder.
    private let config: UnsafeMutablePointer<WebPDecoderConfig>
    private var decoder: OpaquePointer?
    private var inspection: WebPInspection?
    private var size = (width: 0, height: 0)
    private var received = 0
    private var complete = false

    private init(_ options: DecodeOptionsCopy) {
        self.options = options
        config = .allocate(capacity: 1)
        config.initialize(to: WebPDecoderConfig())
    }

    deinit {
        if let decoder { WebPIDelete(decoder) }
        WebPFreeDecBuffer(&config.pointee.output)
        config.deallocate()
    }

    static func open(_ options: UnsafePointer<ip_decode_options>?) throws -> WebPIncrementalSession {
        WebPIncrementalSession(try IncrementalOptions.retain(options))
    }

    /// OK with a preview (or the finished image), NEED_MORE before the first row.
    func update(_ given: UnsafeBufferPointer<UInt8>, isFinal: Bool, call: OpaquePointer?,
                into target: UnsafeMutablePointer<ip_image>) throws -> ip_status {
        let data = given.baseAddress, count = given.count
        try Host.checkCancellation(call)
        guard count >= received else {
            throw PluginFailure.invalidData("incremental data shrank from \(received) to \(count) bytes")
        }
        received = count
        let bytes = UnsafeBufferPointer(start: data, count: data == nil ? 0 : count)
        try InputLimit.check(count, options.limits)
        if inspection == nil {
            guard let found = try inspect(bytes, isFinal: isFinal) else { return ip_status(IP_STATUS_NEED_MORE) }
            inspection = found
        }
        guard let inspection else { return ip_status(IP_STATUS_NEED_MORE) }
        if inspection.isAnimated {
            guard isFinal else { return ip_status(IP_STATUS_NEED_MORE) }
            let animation = try WebPAnimation(bytes, inspection: inspection, limits: options.limits, threads: options.threads)
            guard let frame = try animation.next(call: call) else { throw PluginFailure.invalidData("the animation has no frame") }
            ABIStruct.write(try animation.output(frame, call: call), to: target)
            return ip_status(IP_STATUS_OK)
        }
        if !complete, let decoder {
            let status = WebPIUpdate(decoder, bytes.baseAddress, bytes.count)
            switch status {
            case VP8_STATUS_OK: complete = true
            case VP8_STATUS_SUSPENDED: if isFinal { throw WebPFailure.from(status, "the data ended before the last row") }
            default: throw WebPFailure.from(status, "decoding incrementally")
            }
        }
        guard let decoder else { return ip_status(IP_STATUS_NEED_MORE) }
        var lastRow: Int32 = 0, width: Int32 = 0, height: Int32 = 0, stride: Int32 = 0
        guard let rows = WebPIDecGetRGB(decoder, &lastRow, &width, &height, &stride), lastRow > 0 else {
            return ip_status(IP_STATUS_NEED_MORE)
        }
        var output = try Host.allocatePixels(call, width: Int(width), height: Int(height), format: IP_PIXEL_RGBA8)
        guard let pixels = output.pixels else { throw PluginFailure.internalError("host returned no pixels") }
        for y in 0..<Int(min(lastRow, height)) {
            (pixels + y * Int(output.stride)).update(from: rows + y * Int(stride), count: Int(width) * 4)
        }
        // A preview's missing rows are transparent, so it has alpha even when the image has none.
        output.alpha_mode = ip_alpha_mode(complete && !inspection.hasAlpha ? IP_ALPHA_NONE : IP_ALPHA_STRAIGHT)
        output.duration_ms = 0
        output.index = 0
        ABIStruct.write(output, to: target)
        return ip_status(IP_STATUS_OK)
    }

    /// Reads the headers once enough bytes are there and starts the incremental decoder; nil while too few.
    private func inspect(_ bytes: UnsafeBufferPointer<UInt8>, isFinal: Bool) throws -> WebPInspection? {
        var features = WebPBitstreamFeatures()
        let status = WebPGetFeatures(bytes.baseAddress, bytes.count, &features)
        if status == VP8_STATUS_NOT_ENOUGH_DATA, !isFinal { return nil }
        guard status == VP8_STATUS_OK else { throw WebPFailure.from(status, "reading the headers") }
        if features.has_animation != 0 {
            // The animation's chunks are read at the end, when they are all there.
            guard isFinal else { return nil }
            return try WebPInspection(bytes, limits: options.limits)
        }
        // A still image's first headers are enough (the demuxer would want every byte).
        let found = WebPInspection(width: Int(features.width), height: Int(features.height), hasAlpha: features.has_alpha != 0,
                                   isAnimated: false, format: features.format, frameCount: 1, loopCount: -1, flags: 0)
        try WebPLimits.check(width: found.width, height: found.height, options.limits)
        size = WebPScaling.decodeSize(width: found.width, height: found.height, options: options)
        guard WebPInitDecoderConfig(config) != 0 else { throw PluginFailure.internalError("libwebp version mismatch") }
        WebPStill.configure(&config.pointee, inspection: found, size: size, threads: options.threads)
        guard let made = WebPIDecode(nil, 0, config) else {
            throw PluginFailure(IP_STATUS_NO_MEMORY, "libwebp could not start an incremental decoder")
        }
        decoder = made
        return found
    }
}
