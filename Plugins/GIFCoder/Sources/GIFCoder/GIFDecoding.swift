import PluginAPI
import PluginKit

/// probe and decode: what the coder's C slots call inside `withStatus`.
enum GIFDecoding {
    static func probe(_ request: UnsafePointer<ip_decode_request>?, into info: UnsafeMutablePointer<ip_image_info>?) throws {
        guard let info else { throw PluginFailure.internalError("NULL info") }
        let view = try DecodeRequestView(request)
        let scan = try GIFScan(view.data, limits: view.options.limits, call: view.call)
        var result = ip_image_info()
        result.width = UInt32(scan.width)
        result.height = UInt32(scan.height)
        result.frame_count = UInt32(scan.frameCount)
        result.page_count = 1
        result.loop_count = scan.loopCount
        result.bit_depth = 8
        result.has_alpha = scan.hasTransparency ? 1 : 0
        setInfoStrings(&result, format: "gif", details: scan.details)
        ABIStruct.write(result, to: info)
    }

    /// Composites frames 0 through `frame_index` straight into the host's buffer and returns that frame.
    static func decode(_ request: UnsafePointer<ip_decode_request>?, into image: UnsafeMutablePointer<ip_image>?) throws {
        guard let image else { throw PluginFailure.internalError("NULL image") }
        let view = try DecodeRequestView(request)
        try view.requireSinglePage("a GIF")
        let wanted = try view.requestedFrame()
        var output = ip_image()
        let animation = try GIFAnimation(data: view.data, limits: view.options.limits) { width, height in
            output = try Host.allocatePixels(view.call, width: width, height: height, format: IP_PIXEL_RGBA8)
            guard let pixels = output.pixels else { throw PluginFailure.internalError("host returned no pixels") }
            return GIFCanvas(width: width, height: height, stride: Int(output.stride), pixels: pixels)
        }
        var frame: GIFAnimation.Frame?
        while frame == nil || frame!.index < wanted {
            guard let next = try animation.compositeNext(call: view.call) else {
                let count = animation.framesRead
                if count == 0 { throw GIFAnimation.noImageFailure(animation.reader) }
                throw PluginFailure.notFound("frame \(wanted) does not exist: the GIF has \(count) frame\(count == 1 ? "" : "s")")
            }
            frame = next
        }
        // A single-frame GIF is a still image (duration 0); one look ahead tells, without decoding anything.
        // Unreadable bytes after the frame do not spoil a frame that decoded: they count as "no more frames".
        let isStill = wanted == 0 && !((try? animation.hasMoreFrames()) ?? false)
        output.alpha_mode = ip_alpha_mode(IP_ALPHA_STRAIGHT)
        output.duration_ms = isStill ? 0 : UInt32(frame!.durationMilliseconds)
        output.index = UInt32(wanted)
        ABIStruct.write(output, to: image)
    }
}
