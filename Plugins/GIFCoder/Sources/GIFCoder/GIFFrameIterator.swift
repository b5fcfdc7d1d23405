import PluginAPI
import PluginKit

/// The state behind frames_open / frames_next / frames_close: one `GIFAnimation` over the host's bytes (valid
/// until frames_close) with its canvas in plugin memory, copied into a fresh host buffer for every frame.
final class GIFFrameIterator {
    private let animation: GIFAnimation
    private let firstFrameOnly: Bool
    private var finished = false

    private init(_ view: DecodeRequestView) throws {
        animation = try GIFAnimation(data: view.data, limits: view.options.limits) { width, height in
            try GIFCanvas(width: width, height: height)
        }
        firstFrameOnly = view.has(UInt32(IP_DECODE_FIRST_FRAME_ONLY))
    }

    /// frames_open (the kit has checked the input size and keeps the iterator until frames_close).
    static func open(_ request: UnsafePointer<ip_decode_request>) throws -> GIFFrameIterator {
        let view = try DecodeRequestView(request)
        try view.requireSinglePage("a GIF")
        return try GIFFrameIterator(view)
    }

    /// Composites the next frame and hands a copy to the host; END after the last (or after the first with
    /// first-frame-only). An error ends the iteration.
    func next(call: OpaquePointer?, into target: UnsafeMutablePointer<ip_image>) throws -> ip_status {
        guard !finished else { return ip_status(IP_STATUS_END) }
        let frame: GIFAnimation.Frame
        do {
            guard let next = try animation.compositeNext(call: call) else {
                finished = true
                if animation.framesRead == 0 { throw GIFAnimation.noImageFailure(animation.reader) }
                return ip_status(IP_STATUS_END)
            }
            frame = next
        } catch {
            finished = true
            throw error
        }
        guard let canvas = animation.canvas else { throw PluginFailure.internalError("no canvas after a frame") }
        var output = try Host.allocatePixels(call, width: canvas.width, height: canvas.height, format: IP_PIXEL_RGBA8)
        guard let pixels = output.pixels else { throw PluginFailure.internalError("host returned no pixels") }
        canvas.copy(to: pixels, stride: Int(output.stride))
        if firstFrameOnly { finished = true }
        let isStill = frame.index == 0 && !((try? animation.hasMoreFrames()) ?? false)
        output.alpha_mode = ip_alpha_mode(IP_ALPHA_STRAIGHT)
        output.duration_ms = isStill ? 0 : UInt32(frame.durationMilliseconds)
        output.index = UInt32(frame.index)
        ABIStruct.write(output, to: target)
        return ip_status(IP_STATUS_OK)
    }
}
