import PluginAPI
import VersionedStructs

/// Reads an animation one composited frame at a time through the coder's frames_open / frames_next /
/// frames_close slots, so a long animation is never held in memory unless the caller collects it.
///
/// Owns copies of everything the ABI says must outlive frames_open (the bytes, the options and all they point to,
/// the call).
/// Not Sendable: one reader is used from one task at a time, as the ABI's per-iterator thread tag requires.
public final class FrameReader {
    public let coder: PluginCoder
    private let options: DecodeOptions
    /// nil for frames a worker already decoded and finished.
    private let finishing: FinishingStep?
    private let data: UnsafeMutableBufferPointer<UInt8>
    private let abiOptions: OwnedDecodeOptions?
    private let request: UnsafeMutablePointer<ip_decode_request>
    private var iterator: OpaquePointer?
    private let context: CallContext
    private var delivered = 0
    private var finished = false
    private var released = false
    /// Frames a worker already decoded (the coder is isolated): handed out in order instead of calling the slots.
    private var decoded: [Image]?

    init(coder: PluginCoder, data source: [UInt8], options requested: DecodeOptions, transformers: [any ImageTransforming] = []) throws {
        guard let open = try coder.vtable().framesOpen, coder.descriptor.capabilities.contains(.animated) else {
            throw PipelineError.decodingFailed(coder: coder.descriptor.id, status: .unsupported, message: "this coder does not read animations")
        }
        // Every frame is finished as a still decode is (the same plan: size, gravity, budget, colour, tint).
        let plan = try source.withUnsafeBytes { bytes in
            try DecodePlan(coder: coder, options: requested, transformers: transformers) { try coder.probe(bytes, options: requested) }
        }
        let options = plan.coderOptions
        self.coder = coder
        self.options = options
        finishing = plan.finishing
        context = CallContext(limits: options.limits)
        data = .allocate(capacity: max(1, source.count))
        _ = data.initialize(from: source)
        let abiOptions = OwnedDecodeOptions(options)
        self.abiOptions = abiOptions
        request = .allocate(capacity: 1)
        request.initialize(to: ip_decode_request(
            struct_size: UInt32(MemoryLayout<ip_decode_request>.size), data: UnsafePointer(data.baseAddress), size: source.count,
            options: UnsafePointer(abiOptions.pointer), call: context.handle))
        var message = MessageBuffer()
        var opened: OpaquePointer?
        let status = message.withMessage { m in coder.calling { PluginStatus(abi: open(request, &opened, m)) } }
        guard status == .ok else {
            release()
            throw PipelineError.decodingFailed(coder: coder.descriptor.id, status: status, message: message.text)
        }
        iterator = opened
    }

    /// A reader over frames decoded elsewhere (an isolated coder's worker).
    init(coder: PluginCoder, decoded frames: [Image]) {
        self.coder = coder
        options = DecodeOptions()
        finishing = nil
        context = CallContext(limits: options.limits)
        data = .allocate(capacity: 1)
        abiOptions = nil
        request = .allocate(capacity: 1)
        decoded = frames.reversed()
    }

    deinit {
        if let iterator, let close = try? coder.vtable().table.frames_close { coder.calling { close(iterator) } }
        release()
    }

    /// Frees the copies; idempotent, because a failed init releases and then deinit runs too.
    private func release() {
        guard !released else { return }
        released = true
        data.deallocate()
        request.deallocate()
    }

    /// Cancels a frame being decoded on another thread (the plugin polls the flag).
    public func cancel() { context.cancel() }

    /// The next composited frame (finished like a still decode: `FinishingStep`), or nil after the last.
    public func next() throws -> Image? {
        if decoded != nil { return decoded?.popLast() }
        guard !finished, let next = try coder.vtable().table.frames_next else { return nil }
        var frame = ip_image()
        frame.struct_size = UInt32(MemoryLayout<ip_image>.size)
        var message = MessageBuffer()
        let status = message.withMessage { m in coder.calling { PluginStatus(abi: next(iterator, context.handle, &frame, m)) } }
        defer { context.finish() }
        switch status {
        case .ok:
            // Only a frame beyond the limit is an error: an animation of exactly maxFrames frames ends normally.
            if options.limits.maxFrames > 0, delivered >= options.limits.maxFrames {
                finished = true
                throw PipelineError.decodingFailed(coder: coder.descriptor.id, status: .limitExceeded,
                                                   message: "the animation has more than \(options.limits.maxFrames) frames")
            }
            delivered += 1
            if options.firstFrameOnly { finished = true }
            let raw = try coder.adopt(frame, context: context)
            return try finishing.map { try $0.apply(raw) } ?? raw
        case .end:
            finished = true
            return nil
        default:
            finished = true
            if context.isCancelled { throw PipelineError.cancelled }
            throw PipelineError.decodingFailed(coder: coder.descriptor.id, status: status, message: message.text)
        }
    }

    /// Every remaining frame (bounded by `limits.maxFrames`).
    public func readAll() throws -> [Image] {
        var frames: [Image] = []
        while let frame = try next() { frames.append(frame) }
        return frames
    }
}

#if canImport(Glibc)
import Glibc
#endif
