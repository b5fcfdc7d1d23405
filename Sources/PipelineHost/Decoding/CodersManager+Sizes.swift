/// One source at several sizes, as a batch thumbnailer or a srcset wants it.
///
/// A raster coder decodes once, for the largest box (its fast-thumbnail path reduces no further than that box
/// needs), and every size is finished from that one decode; a vector coder renders each size directly (a smaller
/// render is cheaper and sharper than a downscale), as does a coder that runs in a worker (each size is then one
/// worker request, its input copied again: cheap next to a render).
extension CodersManager {
    /// The images of `data` at each of `sizes` (same order), with `options` otherwise (tint, mode, page, frame...).
    /// An empty `sizes` gives the one image of `options.thumbnailSize`.
    public func decode(data: [UInt8], options: DecodeOptions, sizes: [PixelSize], isolation: Isolation? = nil,
                       timeout: Double? = nil) throws -> [Image] {
        guard sizes.count > 1 else {
            var single = options
            if let size = sizes.first { single.thumbnailSize = size }
            return [try decode(data: data, options: single, isolation: isolation, timeout: timeout, cancellation: nil)]
        }
        return try route(data, options: options, isolation: isolation) { coder in
            let caps = coder.descriptor.capabilities
            if caps.contains(.scales) || caps.contains(.vector) {
                return try sizes.map { try decodeInProcess(data: data, coder: coder, options: options.sized($0), cancellation: nil) }
            }
            return try decodeOnceForSizes(data, coder: coder, options: options, sizes: sizes)
        } isolated: { pool, coder, confirm in
            try data.withUnsafeBytes { bytes in
                try sizes.map {
                    try pool.decode(bytes, coderID: coder.descriptor.id, options: options.sized($0), timeout: timeout,
                                    cancellation: nil, confirmWithSniff: confirm, pluginPath: coder.pluginPath)
                }
            }
        }
    }

    /// The coder decodes for the size with the longest side; each size is finished (resampled, tinted) from that.
    /// A size the decode is too small for in either dimension (a tall box next to a wide one in `fill` mode) gets
    /// a decode of its own rather than an upscale.
    private func decodeOnceForSizes(_ data: [UInt8], coder: PluginCoder, options: DecodeOptions, sizes: [PixelSize]) throws -> [Image] {
        let largest = sizes.max { max($0.width, $0.height) < max($1.width, $1.height) }!
        let context = CallContext(limits: options.limits)
        let raw = try data.withUnsafeBytes { try coder.decodeRaw($0, options: options.sized(largest), context: context) }
        return try sizes.map { size in
            let sized = options.sized(size)
            let placement = Placement(sourceWidth: raw.width, sourceHeight: raw.height, request: size,
                                      mode: options.scaleMode, allowUpscale: options.allowUpscale)
            if size != largest, placement.outputWidth > raw.width || placement.outputHeight > raw.height {
                return try decodeInProcess(data: data, coder: coder, options: sized, cancellation: nil)
            }
            return try DecodePlan.finishing(options: sized, capabilities: coder.descriptor.capabilities).apply(raw)
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
