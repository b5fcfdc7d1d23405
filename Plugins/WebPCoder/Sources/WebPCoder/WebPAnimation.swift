import CWebP
import PluginAPI
import PluginKit

/// An animated WebP read one composited frame at a time through libwebpdemux's `WebPAnimDecoder`, which keeps only
/// the current canvas (and the previous one for disposal), never the whole animation. Blending and disposal
/// follow the WebP container spec; the canvas starts transparent and disposal clears to transparent (the ANIM
/// background colour is ignored, as browsers and libwebp's decoder do).
final class WebPAnimation {
    private let decoder: OpaquePointer
    let width: Int
    let height: Int
    let frameCount: Int
    private let limits: ip_limits
    private var lastTimestamp: Int32 = 0
    /// The index of the frame `next` returns.
    private(set) var nextIndex = 0

    /// `data` must stay valid and unchanged for the animation's lifetime.
    init(_ data: UnsafeBufferPointer<UInt8>, inspection: WebPInspection, limits: ip_limits, threads: UInt32) throws {
        // libwebp allocates two canvases at once: the limits come first.
        try WebPLimits.check(width: inspection.width, height: inspection.height, limits, what: "the animation canvas")
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else { throw PluginFailure.internalError("libwebp version mismatch") }
        options.color_mode = MODE_RGBA
        options.use_threads = threads == 1 ? 0 : 1
        var webpData = WebPData(bytes: data.baseAddress, size: data.count)
        guard let made = WebPAnimDecoderNew(&webpData, &options) else {
            throw PluginFailure.invalidData("libwebp cannot read the animation (malformed or incomplete chunks)")
        }
        decoder = made
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(made, &info) != 0 else {
            WebPAnimDecoderDelete(made)
            throw PluginFailure.invalidData("libwebp cannot read the animation's header")
        }
        width = Int(info.canvas_width)
        height = Int(info.canvas_height)
        frameCount = Int(info.frame_count)
        self.limits = limits
    }

    deinit { WebPAnimDecoderDelete(decoder) }

    struct Frame {
        var pixels: UnsafePointer<UInt8>
        var index: Int
        var durationMilliseconds: Int
    }

    /// The next composited frame (pixels owned by the decoder, valid until the next call), or nil after the last.
    func next(call: OpaquePointer?) throws -> Frame? {
        guard WebPAnimDecoderHasMoreFrames(decoder) != 0 else { return nil }
        if limits.max_frames > 0, nextIndex >= Int(limits.max_frames) {
            throw PluginFailure.limitExceeded("the animation has more than \(limits.max_frames) frames (the frame limit)")
        }
        try Host.checkCancellation(call)
        var buffer: UnsafeMutablePointer<UInt8>?
        var timestamp: Int32 = 0
        guard WebPAnimDecoderGetNext(decoder, &buffer, &timestamp) != 0, let buffer else {
            throw PluginFailure.invalidData("frame \(nextIndex) of the animated WebP is corrupt")
        }
        defer {
            lastTimestamp = timestamp
            nextIndex += 1
        }
        return Frame(pixels: buffer, index: nextIndex,
                     durationMilliseconds: WebPTiming.milliseconds(Int(timestamp - lastTimestamp)))
    }

    /// Copies a frame into a new host buffer.
    func output(_ frame: Frame, call: OpaquePointer?) throws -> ip_image {
        var image = try Host.allocatePixels(call, width: width, height: height, format: IP_PIXEL_RGBA8)
        guard let pixels = image.pixels else { throw PluginFailure.internalError("host returned no pixels") }
        for y in 0..<height {
            (pixels + y * Int(image.stride)).update(from: frame.pixels + y * width * 4, count: width * 4)
        }
        image.alpha_mode = ip_alpha_mode(IP_ALPHA_STRAIGHT)
        image.duration_ms = UInt32(frame.durationMilliseconds)
        image.index = UInt32(frame.index)
        return image
    }
}

/// How long browsers show an animation frame.
enum WebPTiming {
    /// Durations of 10 ms or less play as 100 ms, as in Chromium (for every animated format); others as stated.
    static func milliseconds(_ stated: Int) -> Int { stated <= 10 ? 100 : stated }
}
