import CAVIF
import PluginAPI
import PluginKit

/// An image sequence read one frame at a time (frames_open / frames_next / frames_close).
///
/// libavif keeps only the frame being decoded (and the AV1 decoder's reference frames); each frame is converted into
/// a fresh host buffer that the host owns from then on, so nothing accumulates here however long the sequence is.
/// The request's bytes and options stay valid until frames_close (ABI), which is why they are borrowed, not copied.
final class AVIFFrameIterator {
    let session: AVIFDecoderSession
    let view: DecodeRequestView
    private var delivered = 0

    private init(session: AVIFDecoderSession, view: DecodeRequestView) {
        self.session = session
        self.view = view
    }

    static func open(_ request: UnsafePointer<ip_decode_request>) throws -> AVIFFrameIterator {
        let view = try DecodeRequestView(request)
        let session = try AVIFDecoderSession(data: view.data, options: view.options)
        try session.parse()
        try view.checkLimits(width: Int(session.image.pointee.width), height: Int(session.image.pointee.height))
        return AVIFFrameIterator(session: session, view: view)
    }

    /// The next frame (OK), or END thrown after the last.
    func next(call: OpaquePointer?, into target: UnsafeMutablePointer<ip_image>) throws -> ip_status {
        try decodeNext(call: call, into: target)
        return ip_status(IP_STATUS_OK)
    }

    private func decodeNext(call: OpaquePointer?, into target: UnsafeMutablePointer<ip_image>) throws {
        if view.has(UInt32(IP_DECODE_FIRST_FRAME_ONLY)), delivered >= 1 { throw PluginFailure(IP_STATUS_END, "") }
        let maxFrames = Int(view.options.limits.max_frames)
        if maxFrames > 0, delivered >= maxFrames, delivered < session.imageCount {
            throw PluginFailure.limitExceeded("the sequence has more than \(maxFrames) frames")
        }
        try Host.checkCancellation(call)
        guard try session.decodeNext() else { throw PluginFailure(IP_STATUS_END, "") }
        try Host.checkCancellation(call)
        let image = try AVIFDecoding.frame(session, view: view, call: call, reduceForThumbnail: true)
        delivered += 1
        ABIStruct.write(image, to: target)
    }
}
