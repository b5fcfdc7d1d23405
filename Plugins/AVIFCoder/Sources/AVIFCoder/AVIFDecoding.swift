import CAVIF
import PluginAPI
import PluginKit

/// probe and decode: a session per call (thread-safe by construction).
enum AVIFDecoding {
    /// Parses the container only (no AV1 decoding) and reports the display size after clap/irot/imir.
    static func probe(
        _ request: UnsafePointer<ip_decode_request>?, into target: UnsafeMutablePointer<ip_image_info>?
    ) throws {
        guard let target else { throw PluginFailure.internalError("NULL info") }
        let view = try DecodeRequestView(request)
        let session = try AVIFDecoderSession(data: view.data, options: view.options)
        // A probe reads the XMP item too (a decode has no use for it); Exif is read by every one-shot session.
        session.decoder.pointee.ignoreXMP = AVIF_FALSE
        try session.parse()
        let image = session.image.pointee
        let geometry = AVIFGeometry(image, applyOrientation: !view.has(UInt32(IP_DECODE_IGNORE_ORIENTATION)))
        var info = ip_image_info()
        info.struct_size = UInt32(MemoryLayout<ip_image_info>.size)
        info.width = UInt32(geometry.outputWidth)
        info.height = UInt32(geometry.outputHeight)
        info.frame_count = UInt32(max(1, session.imageCount))
        info.page_count = 1
        // libavif 0.11 does not read the sequence's edit list, so a repetition count is never known.
        info.loop_count = -1
        info.bit_depth = image.depth
        info.has_alpha = session.alphaPresent ? 1 : 0
        AVIFColor.facts(image).write(into: &info, call: view.call)
        func bytes(_ data: avifRWData) -> [UInt8]? {
            guard let base = data.data, data.size > 0, data.size <= MetadataBlocks.limit else { return nil }
            return Array(UnsafeBufferPointer(start: base, count: data.size))
        }
        MetadataBlocks(exif: bytes(image.exif), xmp: bytes(image.xmp)).write(into: &info, call: view.call)
        setInfoStrings(&info, format: "avif", details: details(session, geometry))
        ABIStruct.write(info, to: target)
    }

    /// Decodes one frame (options->frame_index; 0 for a still image) at full size with transforms applied.
    static func decode(_ request: UnsafePointer<ip_decode_request>?, into target: UnsafeMutablePointer<ip_image>?) throws {
        guard let target else { throw PluginFailure.internalError("NULL image") }
        let view = try DecodeRequestView(request)
        if view.options.page_index > 0 {
            throw PluginFailure.notFound("an AVIF file has one page; page \(view.options.page_index) asked")
        }
        let session = try AVIFDecoderSession(data: view.data, options: view.options)
        try session.parse()
        let index = Int(view.options.frame_index)
        guard index < max(1, session.imageCount) else {
            throw PluginFailure.notFound("frame \(index) asked; the file has \(session.imageCount)")
        }
        let maxFrames = Int(view.options.limits.max_frames)
        if maxFrames > 0, index >= maxFrames {
            throw PluginFailure.limitExceeded("frame \(index) is beyond the frame limit of \(maxFrames)")
        }
        // Check the container's size against the limits before the AV1 decoder allocates its planes.
        try view.checkLimits(width: Int(session.image.pointee.width), height: Int(session.image.pointee.height))
        try Host.checkCancellation(view.call)
        if index == 0 {
            guard try session.decodeNext() else { throw PluginFailure.invalidData("the file holds no image") }
        } else {
            try session.decode(frame: index)
        }
        try Host.checkCancellation(view.call)
        var image = try frame(session, view: view, call: view.call, reduceForThumbnail: true)
        image.index = UInt32(index)
        ABIStruct.write(image, to: target)
    }

    /// The current frame of `session` as a host image with its colour facts (RGBA16 when asked, or for PQ/HLG, and the
    /// source has > 8 bits). With `reduceForThumbnail`, a thumbnail request gets the frame reduced in blocks before its
    /// colour conversion when AVIFReduction allows (one-shot decodes and animation frames; the incremental decoder's
    /// updates stay at full size, so its previews and its final image share one size).
    static func frame(_ session: AVIFDecoderSession, view: DecodeRequestView, call: OpaquePointer?, reduceForThumbnail: Bool = false)
        throws -> ip_image
    {
        let decoded = session.image
        let applyOrientation = !view.has(UInt32(IP_DECODE_IGNORE_ORIENTATION))
        let geometry = AVIFGeometry(decoded.pointee, applyOrientation: applyOrientation)
        let sixteenBit = (view.has(UInt32(IP_DECODE_HIGH_BIT_DEPTH)) || AVIFColor.isHDR(decoded.pointee)) && decoded.pointee.depth > 8
        var image: ip_image
        if reduceForThumbnail, let reduced = try AVIFReduction.reduced(decoded, geometry: geometry, view: view) {
            defer { avifImageDestroy(reduced) }
            image = try AVIFRendering.render(
                reduced, geometry: AVIFGeometry(reduced.pointee, applyOrientation: applyOrientation), sixteenBit: sixteenBit,
                view: view, call: call)
        } else {
            image = try AVIFRendering.render(decoded, geometry: geometry, sixteenBit: sixteenBit, view: view, call: call)
        }
        AVIFColor.facts(decoded.pointee).write(into: &image, call: call)
        image.duration_ms = session.frameDurationMilliseconds
        image.index = UInt32(max(0, session.imageIndex))
        return image
    }

    /// "YUV420, limited range, 8-bit, alpha, clap 385x330+272+39, irot 3 (270° anticlockwise), ICC, Exif, 5 frames".
    static func details(_ session: AVIFDecoderSession, _ geometry: AVIFGeometry) -> String {
        let image = session.image.pointee
        var parts = [
            String(cString: avifPixelFormatToString(image.yuvFormat)),
            image.yuvRange == AVIF_RANGE_FULL ? "full range" : "limited range",
            "\(image.depth)-bit",
        ]
        if session.alphaPresent { parts.append(image.alphaPremultiplied != AVIF_FALSE ? "premultiplied alpha" : "alpha") }
        if geometry.codedWidth != geometry.outputWidth || geometry.codedHeight != geometry.outputHeight {
            parts.append("coded \(geometry.codedWidth)x\(geometry.codedHeight)")
        }
        let transforms = geometry.summary
        if !transforms.isEmpty { parts.append(transforms) }
        if image.icc.size > 0 { parts.append("ICC") }
        if image.exif.size > 0 { parts.append("Exif") }
        if session.imageCount > 1 {
            let seconds = session.decoder.pointee.duration
            parts.append("\(session.imageCount) frames, \(Int((seconds * 1000).rounded())) ms, loop count not stated")
        }
        if session.decoder.pointee.progressiveState != AVIF_PROGRESSIVE_STATE_UNAVAILABLE { parts.append("layered") }
        return parts.joined(separator: ", ")
    }
}
