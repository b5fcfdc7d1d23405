/// Several sizes of one source from one decode: the coder decodes once and every size is finished (resampled,
/// tinted) from that raw image. The one rule behind both places that share a decode: the sizes of one call
/// (`CodersManager.decode(data:options:sizes:)`, a batch's or a srcset's) and the image manager's concurrent
/// requests for one source (a decode shared across requests whose sizes are not known in advance).
enum SizesFromOneDecode {
    /// What the shared decode serves.
    enum Scope {
        /// These sizes, all known now: the decode is made for the largest box, so a coder with shrink-on-load
        /// (JPEG's DCT scaling, WebP's) still reduces as far as that box allows.
        case sizes([PixelSize])
        /// Any size asked while the decode runs: only a full decode serves them all, so a coder with shrink-on-load
        /// decodes each size on its own instead (a reduced decode is cheaper than a shared full one).
        case anySize
    }

    /// Whether sharing pays for `coder`: a raster coder. A vector coder renders each size directly (a smaller
    /// render is cheaper and sharper than a downscale), as does a coder that scales while decoding at any size.
    static func applies(to coder: PluginCoder, scope: Scope) -> Bool {
        let caps = coder.descriptor.capabilities
        switch scope {
        case .sizes(let sizes): return sizes.count > 1 && caps.isDisjoint(with: [.scales, .vector])
        case .anySize: return caps.isDisjoint(with: [.scales, .vector, .fastThumbnail])
        }
    }

    /// The options of the one decode.
    static func decodeOptions(_ options: DecodeOptions, scope: Scope) -> DecodeOptions {
        switch scope {
        case .sizes(let sizes):
            let largest = sizes.max { max($0.width, $0.height) < max($1.width, $1.height) }
            return largest.map { options.sized($0) } ?? options
        case .anySize:
            return options.fullSize
        }
    }

    /// Whether the shared decode `raw` (made with `shared`) serves `options`' size. It does not when a decode reduced
    /// for another box is smaller than this size needs in either dimension (a tall box beside a wide one in `fill`
    /// mode): the size then gets a decode of its own rather than an upscale. A full decode, or the decode made for
    /// this very box, always serves.
    static func serves(_ raw: Image, options: DecodeOptions, shared: DecodeOptions) -> Bool {
        guard let size = options.thumbnailSize, let box = shared.thumbnailSize, box != size else { return true }
        let placement = Placement(sourceWidth: raw.width, sourceHeight: raw.height, request: size,
                                  mode: options.scaleMode, allowUpscale: options.allowUpscale)
        return placement.outputWidth <= raw.width && placement.outputHeight <= raw.height
    }

    /// `options`' size finished (resampled, tinted) from the shared decode `raw`.
    static func finish(_ raw: Image, options: DecodeOptions, coder: PluginCoder) throws -> Image {
        try DecodePlan.finishing(options: options, capabilities: coder.descriptor.capabilities).apply(raw)
    }
}
