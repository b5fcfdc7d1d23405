/// The frames of an animation and how often it plays.
public struct Animation: Sendable {
    public var frames: [Image]
    /// 0 = forever, nil = not stated by the file.
    public var loopCount: Int?
}

/// Animations through the same isolation routing as still decodes: a coder the policy isolates reads its frames
/// in a worker (all of them in one request, returned in one sealed memfd), the others in this process through
/// the frame slots, each frame finished by the same `FinishingStep`.
extension CodersManager {
    /// Every frame (bounded by `options.limits.maxFrames`) and the loop count, or the one image of a still source;
    /// `transformers` are applied to each frame.
    public func animation(data: [UInt8], options: DecodeOptions = DecodeOptions(), transformers: [any ImageTransforming] = [],
                          isolation: Isolation? = nil, timeout: Double? = nil, route given: CoderRoute? = nil) throws -> Animation {
        try route(data, options: options, isolation: isolation, given: given) { coder in
            try Self.animationInProcess(data, coder: coder, options: options, transformers: transformers)
        } isolated: { pool, coder, confirm in
            let animation = try data.withUnsafeBytes { bytes in
                coder.descriptor.capabilities.contains(.animated)
                    ? try pool.animation(bytes, coderID: coder.descriptor.id, options: options, timeout: timeout, cancellation: nil,
                                         confirmWithSniff: confirm, pluginPath: coder.pluginPath)
                    : Animation(frames: [try pool.decode(bytes, coderID: coder.descriptor.id, options: options, timeout: timeout,
                                                         cancellation: nil, confirmWithSniff: confirm, pluginPath: coder.pluginPath)],
                                loopCount: nil)
            }
            return Animation(frames: try animation.frames.map { try FinishingStep.transform($0, by: transformers, limits: options.limits) },
                             loopCount: animation.loopCount)
        }
    }

    /// Every frame (bounded by `options.limits.maxFrames`), or the one image of a still source.
    public func allFrames(data: [UInt8], options: DecodeOptions = DecodeOptions()) throws -> [Image] {
        try animation(data: data, options: options).frames
    }

    /// The one decode path for animations in the process that runs the coder (the host, or a worker).
    static func animationInProcess(_ data: [UInt8], coder: PluginCoder, options: DecodeOptions,
                                   transformers: [any ImageTransforming]) throws -> Animation {
        guard coder.descriptor.capabilities.contains(.animated) else {
            let context = CallContext(limits: options.limits)
            let image = try data.withUnsafeBytes {
                try DecodePlan.decode($0, coder: coder, options: options, context: context, transformers: transformers)
            }
            return Animation(frames: [image], loopCount: nil)
        }
        let frames = try FrameReader(coder: coder, data: data, options: options, transformers: transformers).readAll()
        let loopCount = frames.count > 1 ? try data.withUnsafeBytes { try coder.probe($0, options: options) }.loopCount : nil
        return Animation(frames: frames, loopCount: loopCount)
    }
}
