import CWebP
import PluginAPI
import PluginKit

/// probe and decode: what the coder's C slots call inside `withStatus`.
enum WebPDecoding {
    static func probe(_ request: UnsafePointer<ip_decode_request>?, into info: UnsafeMutablePointer<ip_image_info>?) throws {
        guard let info else { throw PluginFailure.internalError("NULL info") }
        let view = try DecodeRequestView(request)
        let inspection = try WebPInspection(view.data)
        try WebPLimits.checkFrames(inspection.frameCount, view.options.limits)
        var result = ip_image_info()
        result.width = UInt32(inspection.width)
        result.height = UInt32(inspection.height)
        result.frame_count = UInt32(inspection.frameCount)
        result.page_count = 1
        result.loop_count = inspection.loopCount
        result.bit_depth = 8
        result.has_alpha = inspection.hasAlpha ? 1 : 0
        ColorFacts(icc: inspection.iccProfile).write(into: &result, call: view.call)
        inspection.metadata.write(into: &result, call: view.call)
        setInfoStrings(&result, format: "webp", details: inspection.details)
        ABIStruct.write(result, to: info)
    }

    /// A still image (shrunk on load for a thumbnail request), or frame `frame_index` of an animation (composited,
    /// full canvas; the host resamples it).
    static func decode(_ request: UnsafePointer<ip_decode_request>?, into image: UnsafeMutablePointer<ip_image>?) throws {
        guard let image else { throw PluginFailure.internalError("NULL image") }
        let view = try DecodeRequestView(request)
        try view.requireSinglePage("a WebP")
        let wanted = try view.requestedFrame()
        let inspection = try WebPInspection(view.data, limits: view.options.limits)
        var output: ip_image
        if inspection.isAnimated {
            output = try decodeFrame(wanted, view, inspection)
        } else {
            if wanted > 0 { throw PluginFailure.notFound("frame \(wanted) does not exist: the WebP is a still image (1 frame)") }
            // The full size is decoded internally (lossless keeps a full-size ARGB image), so it is checked too.
            try WebPLimits.check(width: inspection.width, height: inspection.height, view.options.limits)
            let size = WebPScaling.decodeSize(width: inspection.width, height: inspection.height, options: view.options)
            output = try WebPStill.decode(view.data, inspection: inspection, size: size, threads: view.options.threads, call: view.call)
        }
        ColorFacts(icc: inspection.iccProfile).write(into: &output, call: view.call)
        ABIStruct.write(output, to: image)
    }

    /// Composites frames 0 through `index` and returns the last.
    private static func decodeFrame(_ index: Int, _ view: DecodeRequestView, _ inspection: WebPInspection) throws -> ip_image {
        guard index < inspection.frameCount else {
            throw PluginFailure.notFound("frame \(index) does not exist: the WebP has \(inspection.frameCount) frames")
        }
        let animation = try WebPAnimation(view.data, inspection: inspection, limits: view.options.limits, threads: view.options.threads)
        while let frame = try animation.next(call: view.call) {
            if frame.index == index { return try animation.output(frame, call: view.call) }
        }
        throw PluginFailure.invalidData("the animation ended before frame \(index) of \(inspection.frameCount)")
    }
}
