import PluginAPI

/// Decodes of a large local file read by ranges (`RangedSource`): the route is made from the file's prefix, and
/// the coder reads the rest itself, so the file is never held whole. Everything else about the decode (the plan,
/// the finishing, the sizes from one decode) is the bytes path's own code.
extension CodersManager {
    /// The route for `source` when its coder reads by ranges in this process; nil when the file is to be read whole
    /// instead: over the input limit (the loader reports it), claimed by no coder from its prefix, claimed by a
    /// coder that does not read ranges or runs in a worker, or when the first candidate needed more than the prefix
    /// to confirm (the whole bytes might choose another coder).
    public func rangedRoute(for source: RangedSource, options: DecodeOptions = DecodeOptions()) -> CoderRoute? {
        if options.limits.maxInputBytes > 0, source.size > UInt64(options.limits.maxInputBytes) { return nil }
        let first = source.prefix.withUnsafeBytes { CoderSelection.candidates(for: $0, among: coders) }.first
        guard let route = try? route(for: source.prefix, options: options), !route.isIsolated, route.coder.readsRanges,
              first?.coder === route.coder else { return nil }
        return route
    }

    /// One image, planned and finished as `decode(data:options:)` does, then transformed.
    public func decode(source: RangedSource, options: DecodeOptions, route: CoderRoute,
                       transformers: [any ImageTransforming] = []) throws -> Image {
        let image = try decodeInProcess(source: source, coder: route.coder, options: options, cancellation: nil)
        return try FinishingStep.transform(image, by: transformers, limits: options.limits)
    }

    /// Every size of one source from one decode where that pays, as `decode(data:options:sizes:)` does.
    public func decode(source: RangedSource, options: DecodeOptions, sizes: [PixelSize], route: CoderRoute,
                       transformers: [any ImageTransforming] = []) throws -> [Image] {
        let coder = route.coder
        let scope = SizesFromOneDecode.Scope.sizes(sizes)
        let images: [Image]
        if sizes.count <= 1 {
            images = [try decodeInProcess(source: source, coder: coder, options: sizes.first.map(options.sized) ?? options, cancellation: nil)]
        } else if !SizesFromOneDecode.applies(to: coder, scope: scope) {
            images = try sizes.map { try decodeInProcess(source: source, coder: coder, options: options.sized($0), cancellation: nil) }
        } else {
            let shared = SizesFromOneDecode.decodeOptions(options, scope: scope)
            let raw = try decodeRaw(source: source, coder: coder, options: shared, context: CallContext(limits: options.limits))
            images = try sizes.map { size in
                let sized = options.sized(size)
                return SizesFromOneDecode.serves(raw, options: sized, shared: shared)
                    ? try SizesFromOneDecode.finish(raw, options: sized, coder: coder)
                    : try decodeInProcess(source: source, coder: coder, options: sized, cancellation: nil)
            }
        }
        return try images.map { try FinishingStep.transform($0, by: transformers, limits: options.limits) }
    }

    /// The source's facts, read by ranges.
    public func probe(source: RangedSource, options: DecodeOptions = DecodeOptions(), route: CoderRoute) throws -> ImageInfo {
        try source.prefix.withUnsafeBytes { try route.coder.probe($0, options: options, source: source) }
    }

    /// What the coder returns before the host finishes it (the image manager shares one such decode between sizes).
    func decodeRaw(source: RangedSource, coder: PluginCoder, options: DecodeOptions, context: CallContext) throws -> Image {
        try source.prefix.withUnsafeBytes { try coder.decodeRaw($0, options: options, context: context, source: source) }
    }

    /// Planned and finished, in this process (a ranged route is never isolated).
    func decodeInProcess(source: RangedSource, coder: PluginCoder, options: DecodeOptions, cancellation: CallContext?) throws -> Image {
        let context = cancellation ?? CallContext(limits: options.limits)
        return try source.prefix.withUnsafeBytes {
            try DecodePlan.decode($0, coder: coder, options: options, context: context, source: source)
        }
    }
}
