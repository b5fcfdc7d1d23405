import CWebP
import PluginAPI
import PluginKit

/// The state behind frames_open / frames_next / frames_close. An animation is read through `WebPAnimation`
/// (lazily, one canvas); a still image yields itself once, at full size, with duration 0.
final class WebPFrameIterator {
    private let view: DecodeRequestView
    private let inspection: WebPInspection
    private let animation: WebPAnimation?
    private let firstFrameOnly: Bool
    private var delivered = 0
    private var finished = false

    private init(_ view: DecodeRequestView) throws {
        self.view = view
        inspection = try WebPInspection(view.data, limits: view.options.limits)
        animation = inspection.isAnimated
            ? try WebPAnimation(view.data, inspection: inspection, limits: view.options.limits, threads: view.options.threads)
            : nil
        if animation == nil {
            try WebPLimits.check(width: inspection.width, height: inspection.height, view.options.limits)
        }
        firstFrameOnly = view.has(UInt32(IP_DECODE_FIRST_FRAME_ONLY))
    }

    /// The request and its bytes stay valid until frames_close (ABI), so the view may keep pointing at them.
    static func open(_ request: UnsafePointer<ip_decode_request>) throws -> WebPFrameIterator {
        let view = try DecodeRequestView(request)
        try view.requireSinglePage("a WebP")
        return try WebPFrameIterator(view)
    }

    /// The next frame into a host buffer: OK, or END after the last (after the first with first-frame-only).
    func next(call: OpaquePointer?, into target: UnsafeMutablePointer<ip_image>) throws -> ip_status {
        guard !finished else { return ip_status(IP_STATUS_END) }
        do {
            var output: ip_image
            if let animation {
                guard let frame = try animation.next(call: call) else {
                    finished = true
                    return ip_status(IP_STATUS_END)
                }
                output = try animation.output(frame, call: call)
            } else {
                output = try WebPStill.decode(view.data, inspection: inspection,
                                              size: (inspection.width, inspection.height), threads: view.options.threads, call: call)
                finished = true
            }
            delivered += 1
            if firstFrameOnly { finished = true }
            ColorFacts(icc: inspection.iccProfile).write(into: &output, call: call)
            ABIStruct.write(output, to: target)
            return ip_status(IP_STATUS_OK)
        } catch {
            finished = true
            throw error
        }
    }
}
