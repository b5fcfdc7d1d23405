import PluginAPI
import PluginKit

/// probe and decode: what the coder's C slots call inside `withStatus`.
enum JXLDecoding {
    static func probe(_ request: UnsafePointer<ip_decode_request>?, into info: UnsafeMutablePointer<ip_image_info>?) throws {
        guard let info else { throw PluginFailure.internalError("NULL info") }
        let view = try DecodeRequestView(request)
        let decoder = try JXLDecoder.make(view.data, limits: view.options.limits, threads: 1, reading: .header)
        var result = ip_image_info()
        result.width = UInt32(decoder.width)
        result.height = UInt32(decoder.height)
        var frames = 1
        if decoder.isAnimated {
            // Frame headers are read and each frame's pixels skipped: cheap next to decoding them.
            let limit = view.options.limits.max_frames > 0 ? Int(view.options.limits.max_frames) : 100_000
            frames = try JXLDecoder.make(view.data, limits: view.options.limits, threads: 1, reading: .frameHeaders).countFrames(upTo: limit)
            if frames > limit { throw PluginFailure.limitExceeded("the animation has more than \(limit) frames (the frame limit)") }
        }
        result.frame_count = UInt32(frames)
        result.page_count = 1
        result.loop_count = decoder.loopCount
        result.bit_depth = UInt32(decoder.info.bits_per_sample)
        result.has_alpha = decoder.hasAlpha ? 1 : 0
        decoder.color.write(into: &result, call: view.call)
        JXLContainer.metadata(view.data).write(into: &result, call: view.call)
        let boxes = JXLContainer.boxSummary(JXLContainer.boxTypes(view.data))
        setInfoStrings(&result, format: "jxl", details: ([decoder.details(container: isContainer(view.data))] + boxes).joined(separator: ", "))
        ABIStruct.write(result, to: info)
    }

    /// A still image, or frame `frame_index` of an animation (composited on the full canvas).
    static func decode(_ request: UnsafePointer<ip_decode_request>?, into image: UnsafeMutablePointer<ip_image>?) throws {
        guard let image else { throw PluginFailure.internalError("NULL image") }
        let view = try DecodeRequestView(request)
        try view.requireSinglePage("a JPEG XL file")
        let wanted = try view.requestedFrame()
        if wanted == 0, view.thumbnailSize != nil, let thumbnail = try dcThumbnail(view) {
            ABIStruct.write(thumbnail, to: image)
            return
        }
        let decoder = try JXLDecoder.make(view.data, limits: view.options.limits, threads: view.options.threads, reading: .pixels)
        if wanted > 0 && !decoder.isAnimated {
            throw PluginFailure.notFound("frame \(wanted) does not exist: the JPEG XL file is a still image (1 frame)")
        }
        var frame: ip_image?
        while let next = try decoder.nextFrame(call: view.call) {
            if Int(next.index) == wanted {
                frame = next
                break
            }
            Host.freePixels(view.call, next.pixels)
        }
        guard var output = frame else {
            throw PluginFailure.notFound("frame \(wanted) does not exist: the animation has \(decoder.framesDecoded) frames")
        }
        decoder.color.write(into: &output, call: view.call)
        ABIStruct.write(output, to: image)
    }

    /// Shrink-on-load for a still whose thumbnail needs at most an eighth of its size in both dimensions: the DC
    /// pass alone (the 1:8 image every VarDCT frame sends before its detail), flushed at full size
    /// (`JxlDecoderFlushImage`), so the AC groups are never decoded; the host then resamples as usual. nil when the
    /// thumbnail needs more detail, for animations and for files kept in their original colour profile (lossless
    /// or modular: no DC pass); the caller then decodes fully. A lossy file without a DC step gives its whole frame.
    static func dcThumbnail(_ view: DecodeRequestView) throws -> ip_image? {
        let decoder = try JXLDecoder.make(view.data, limits: view.options.limits, threads: view.options.threads, reading: .dc)
        guard !decoder.isAnimated, decoder.info.uses_original_profile == 0 else { return nil }
        let placed = Host.place(sourceWidth: Double(decoder.width), sourceHeight: Double(decoder.height), options: view.options)
        let drawnWidth = Double(decoder.width) * placed.scale_x, drawnHeight = Double(decoder.height) * placed.scale_y
        guard drawnWidth * 8 <= Double(decoder.width), drawnHeight * 8 <= Double(decoder.height) else { return nil }
        return try decoder.preview(call: view.call)
    }

    /// The ISO BMFF container (signature box) rather than a naked codestream.
    static func isContainer(_ data: UnsafeBufferPointer<UInt8>) -> Bool {
        data.count >= 8 && Array(data[4..<8]) == Array("JXL ".utf8)
    }
}

/// An animation one composited frame at a time; the request (and its bytes) stay valid until frames_close.
final class JXLFrameIterator {
    private let decoder: JXLDecoder

    private init(decoder: JXLDecoder) { self.decoder = decoder }

    static func open(_ request: UnsafePointer<ip_decode_request>) throws -> JXLFrameIterator {
        let view = try DecodeRequestView(request)
        try view.requireSinglePage("a JPEG XL file")
        return JXLFrameIterator(decoder: try JXLDecoder.make(view.data, limits: view.options.limits, threads: view.options.threads,
                                                        reading: .pixels))
    }

    func next(call: OpaquePointer?, into frame: UnsafeMutablePointer<ip_image>) throws -> ip_status {
        guard var image = try decoder.nextFrame(call: call) else { return ip_status(IP_STATUS_END) }
        decoder.color.write(into: &image, call: call)
        ABIStruct.write(image, to: frame)
        return ip_status(IP_STATUS_OK)
    }
}
