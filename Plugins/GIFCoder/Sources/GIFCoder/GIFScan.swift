import CGIF
import PluginAPI
import PluginKit

/// The facts `probe` reports, gathered by one pass over the records that skips every frame's LZW data
/// (sub-blocks are stepped over by their length bytes, nothing is decompressed).
struct GIFScan {
    var width = 0
    var height = 0
    var frameCount = 0
    /// The stored repetition count of the loop extension, nil when the file has none.
    var repetitions: Int?
    var hasTransparency = false
    var anyInterlaced = false
    var localPalettes = 0
    var hasGlobalPalette = false
    var isGIF89 = false
    /// The data ended before the trailer inside a frame (the frames before it are intact).
    var truncatedAfterFrames: Int?

    init(_ data: UnsafeBufferPointer<UInt8>, limits: ip_limits, call: OpaquePointer?) throws {
        let reader = try GIFReader(data)
        isGIF89 = reader.isGIF89
        hasGlobalPalette = reader.hasGlobalPalette
        width = reader.screenWidth
        height = reader.screenHeight
        scanning: while true {
            let record: GIFReader.Record
            do {
                record = try reader.nextRecord()
            } catch let failure as PluginFailure where failure.status == IP_STATUS_TRUNCATED && frameCount > 0 {
                truncatedAfterFrames = frameCount
                break scanning
            }
            switch record {
            case .end: break scanning
            case .loop(let count): repetitions = count
            case .graphicsControl(let gcb): if gcb.TransparentColor != NO_TRANSPARENT_COLOR { hasTransparency = true }
            case .otherExtension: continue
            case .image:
                if limits.max_frames > 0, frameCount >= Int(limits.max_frames) {
                    throw PluginFailure.limitExceeded("the animation has more than \(limits.max_frames) frames (the frame limit)")
                }
                if frameCount & 255 == 0 { try Host.checkCancellation(call) }
                do {
                    let header = try reader.readFrameHeader(index: frameCount)
                    try reader.skipImageData(frame: frameCount)
                    if frameCount == 0 {
                        // The canvas grows to hold the first frame, exactly as the decoder does.
                        width = max(width, header.left + header.width)
                        height = max(height, header.top + header.height)
                        if header.left > 0 || header.top > 0 || header.left + header.width < width
                            || header.top + header.height < height {
                            hasTransparency = true  // the canvas starts transparent outside the first frame
                        }
                    }
                    if header.interlaced { anyInterlaced = true }
                    if header.hasLocalPalette { localPalettes += 1 }
                } catch let failure as PluginFailure where failure.status == IP_STATUS_TRUNCATED && frameCount > 0 {
                    truncatedAfterFrames = frameCount
                    break scanning
                }
                frameCount += 1
            }
        }
        if frameCount == 0 { throw GIFAnimation.noImageFailure(reader) }
    }

    /// Loop count in the ABI's meaning (times played; 0 = forever; -1 = not stated). The NETSCAPE2.0 field counts
    /// repetitions after the first play, so a stored N > 0 plays N + 1 times (how browsers and gif2webp read it).
    var loopCount: Int32 {
        guard let repetitions else { return -1 }
        return repetitions == 0 ? 0 : Int32(repetitions + 1)
    }

    /// "GIF89a, 12 frames, global palette, 3 local palettes, interlaced, transparency, loops forever".
    var details: String {
        var parts = [isGIF89 ? "GIF89a" : "GIF87a", frameCount == 1 ? "1 frame" : "\(frameCount) frames"]
        if hasGlobalPalette { parts.append("global palette") }
        if localPalettes > 0 { parts.append(localPalettes == 1 ? "1 local palette" : "\(localPalettes) local palettes") }
        if anyInterlaced { parts.append("interlaced") }
        if hasTransparency { parts.append("transparency") }
        switch repetitions {
        case nil: break
        case 0?: parts.append("loops forever")
        case let n?: parts.append("plays \(n + 1) times")
        }
        if let frames = truncatedAfterFrames { parts.append("truncated after \(frames) complete frames") }
        return parts.joined(separator: ", ")
    }
}
