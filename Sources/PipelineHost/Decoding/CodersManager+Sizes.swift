/// One source at several sizes, as a batch thumbnailer or a srcset wants it.
///
/// A raster coder decodes once for every size (SizesFromOneDecode); a vector coder renders each size directly,
/// as does a coder that runs in a worker (each size is then one worker request, its input copied again: cheap
/// next to a render).
extension CodersManager {
    /// The images of `data` at each of `sizes` (same order), with `options` otherwise (tint, mode, page, frame...).
    /// An empty `sizes` gives the one image of `options.thumbnailSize`.
    public func decode(data: [UInt8], options: DecodeOptions, sizes: [PixelSize], isolation: Isolation? = nil,
                       timeout: Double? = nil, route given: CoderRoute? = nil) throws -> [Image] {
        guard sizes.count > 1 else {
            var single = options
            if let size = sizes.first { single.thumbnailSize = size }
            return [try decode(data: data, options: single, isolation: isolation, timeout: timeout, cancellation: nil, route: given)]
        }
        return try route(data, options: options, isolation: isolation, given: given) { coder in
            let scope = SizesFromOneDecode.Scope.sizes(sizes)
            guard SizesFromOneDecode.applies(to: coder, scope: scope) else {
                return try sizes.map { try decodeInProcess(data: data, coder: coder, options: options.sized($0), cancellation: nil) }
            }
            let shared = SizesFromOneDecode.decodeOptions(options, scope: scope)
            let context = CallContext(limits: options.limits)
            let raw = try data.withUnsafeBytes { try coder.decodeRaw($0, options: shared, context: context) }
            return try sizes.map { size in
                let sized = options.sized(size)
                return SizesFromOneDecode.serves(raw, options: sized, shared: shared)
                    ? try SizesFromOneDecode.finish(raw, options: sized, coder: coder)
                    : try decodeInProcess(data: data, coder: coder, options: sized, cancellation: nil)
            }
        } isolated: { pool, coder, confirm in
            try data.withUnsafeBytes { bytes in
                try sizes.map {
                    try pool.decode(bytes, coderID: coder.descriptor.id, options: options.sized($0), timeout: timeout,
                                    cancellation: nil, confirmWithSniff: confirm, pluginPath: coder.pluginPath)
                }
            }
        }
    }
}

extension DecodeOptions {
    func sized(_ size: PixelSize) -> DecodeOptions {
        var copy = self
        copy.thumbnailSize = size
        return copy
    }
}
