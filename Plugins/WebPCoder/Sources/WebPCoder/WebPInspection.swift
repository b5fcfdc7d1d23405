import CWebP
import PluginAPI
import PluginKit

/// What a WebP file is, read from its headers (RIFF, VP8X, ANIM, frame headers) without decoding pixels.
struct WebPInspection {
    /// The canvas size (for a still image, the image size).
    var width: Int
    var height: Int
    var hasAlpha: Bool
    var isAnimated: Bool
    /// 1 lossy, 2 lossless, 0 mixed or undefined (animations).
    var format: Int32
    var frameCount: Int
    /// WebP's ANIM loop count is the number of plays (0 = forever), the ABI's meaning; -1 for still images.
    var loopCount: Int32
    /// VP8X feature flags (ICC, EXIF, XMP, alpha, animation).
    var flags: UInt32
    /// The ICCP chunk: the colour profile the pixels are in (the host converts from it).
    var iccProfile: [UInt8]? = nil
    /// The EXIF and "XMP " chunks, as stored (for `info`).
    var metadata = MetadataBlocks()
}

extension WebPInspection {
    /// Reads every header (the demuxer needs the whole file for an animation). In an extension, so that the
    /// memberwise initialiser stays available for the incremental decoder's header-only inspection.
    /// With `limits`, the size in the first header (the VP8X canvas) is checked before anything else is read.
    init(_ data: UnsafeBufferPointer<UInt8>, limits: ip_limits? = nil) throws {
        var features = WebPBitstreamFeatures()
        let status = WebPGetFeatures(data.baseAddress, data.count, &features)
        guard status == VP8_STATUS_OK else { throw WebPFailure.from(status, "reading the headers") }
        if let limits { try WebPLimits.check(width: Int(features.width), height: Int(features.height), limits) }
        width = Int(features.width)
        height = Int(features.height)
        hasAlpha = features.has_alpha != 0
        isAnimated = features.has_animation != 0
        format = features.format
        frameCount = 1
        loopCount = -1
        flags = 0
        var webpData = WebPData(bytes: data.baseAddress, size: data.count)
        if let demux = WebPDemux(&webpData) {
            defer { WebPDemuxDelete(demux) }
            flags = WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS)
            width = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH))
            height = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT))
            if isAnimated {
                frameCount = Int(WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT))
                loopCount = Int32(WebPDemuxGetI(demux, WEBP_FF_LOOP_COUNT))
            }
            if flags & UInt32(ICCP_FLAG.rawValue) != 0 {
                var chunk = WebPChunkIterator()
                if WebPDemuxGetChunk(demux, "ICCP", 1, &chunk) != 0, chunk.chunk.size > 0, let bytes = chunk.chunk.bytes {
                    iccProfile = Array(UnsafeBufferPointer(start: bytes, count: chunk.chunk.size))
                }
                WebPDemuxReleaseChunkIterator(&chunk)
            }
            func chunk(_ fourCC: String, flag: UInt32) -> [UInt8]? {
                guard flags & flag != 0 else { return nil }
                var chunk = WebPChunkIterator()
                defer { WebPDemuxReleaseChunkIterator(&chunk) }
                guard WebPDemuxGetChunk(demux, fourCC, 1, &chunk) != 0, chunk.chunk.size > 0, let bytes = chunk.chunk.bytes else { return nil }
                return Array(UnsafeBufferPointer(start: bytes, count: chunk.chunk.size))
            }
            metadata = MetadataBlocks(exif: chunk("EXIF", flag: UInt32(EXIF_FLAG.rawValue)), xmp: chunk("XMP ", flag: UInt32(XMP_FLAG.rawValue)))
        } else if isAnimated {
            // The demuxer needs every chunk; the features parser only the first ones.
            throw PluginFailure.truncated("the animated WebP is incomplete or malformed (its chunks cannot be read)")
        }
        guard width > 0, height > 0 else { throw PluginFailure.invalidData("the WebP has an empty canvas") }
    }

    /// "lossy, alpha, ICC" / "animated, 12 frames, loops forever, alpha".
    var details: String {
        var parts: [String] = []
        if isAnimated {
            parts.append("animated")
            parts.append(frameCount == 1 ? "1 frame" : "\(frameCount) frames")
            parts.append(loopCount == 0 ? "loops forever" : "plays \(loopCount) time\(loopCount == 1 ? "" : "s")")
        } else {
            parts.append(format == 2 ? "lossless" : format == 1 ? "lossy" : "still")
        }
        if hasAlpha { parts.append("alpha") }
        if flags & UInt32(ICCP_FLAG.rawValue) != 0 { parts.append("ICC profile") }
        if flags & UInt32(EXIF_FLAG.rawValue) != 0 { parts.append("EXIF") }
        if flags & UInt32(XMP_FLAG.rawValue) != 0 { parts.append("XMP") }
        return parts.joined(separator: ", ")
    }
}
