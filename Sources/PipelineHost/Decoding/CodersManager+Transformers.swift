/// Decodes that end with the request's transformers, under the request's limits: the same processing step the
/// image manager runs after a decode (`FinishingStep.transform`), so bytes already in hand (standard input, a
/// batch's loaded source) are held to the memory budget and output limit exactly as a URL or a path is. A caller
/// never applies a transformer chain itself.
extension CodersManager {
    /// One image, finished and transformed.
    public func decode(data: [UInt8], options: DecodeOptions, transformers: [any ImageTransforming]) throws -> Image {
        try FinishingStep.transform(try decode(data: data, options: options), by: transformers, limits: options.limits)
    }

    /// Every size of one source (see `decode(data:options:sizes:)`), each transformed.
    public func decode(data: [UInt8], options: DecodeOptions, sizes: [PixelSize],
                       transformers: [any ImageTransforming], route: CoderRoute? = nil) throws -> [Image] {
        try decode(data: data, options: options, sizes: sizes, route: route).map {
            try FinishingStep.transform($0, by: transformers, limits: options.limits)
        }
    }

    /// Reads the frames of an animation lazily when its coder runs in this process, each finished and transformed
    /// as it is read; when the policy isolates the coder, the worker decodes them all at once and the reader hands
    /// them out (transformed here).
    public func frames(data: [UInt8], options: DecodeOptions = DecodeOptions(),
                       transformers: [any ImageTransforming] = [], route given: CoderRoute? = nil) throws -> FrameReader {
        try route(data, options: options, isolation: nil, given: given) { coder in
            try FrameReader(coder: coder, data: data, options: options, transformers: transformers)
        } isolated: { pool, coder, confirm in
            let animation = try data.withUnsafeBytes {
                try pool.animation($0, coderID: coder.descriptor.id, options: options, timeout: nil, cancellation: nil,
                                   confirmWithSniff: confirm, pluginPath: coder.pluginPath)
            }
            return FrameReader(coder: coder, decoded: transformers.isEmpty ? animation.frames : try animation.frames.map {
                try FinishingStep.transform($0, by: transformers, limits: options.limits)
            })
        }
    }
}
