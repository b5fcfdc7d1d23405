import Synchronization

/// The mark a `Watermark` draws, and the one place that produces it at the size a result needs.
///
/// A vector mark (SVG, PDF) is rendered again at each size asked, so its edges stay as sharp at 1000 px as at
/// 50 px; a raster mark is decoded once and resampled. Sizes already produced are kept (a few, as premultiplied
/// float pixels ready to composite), since a service draws the same mark at the same few sizes all day.
///
/// `identity` (a digest of the file's bytes) enters the result's cache key: replacing the mark's file on disk and
/// restarting gives new results, never yesterday's mark from a cache.
public final class WatermarkImage: Sendable {
    public let identity: String
    public let isVector: Bool
    private let data: [UInt8]
    private let coders: CodersManager
    /// The raster decoded once at its intrinsic size (vectors render per size instead).
    private let intrinsic: Image
    private let prepared = Mutex<[PixelSize: FloatPixels]>([:])
    /// Sizes kept at once; a new one past this drops them all (a service sees few sizes; a batch run one).
    private static let preparedLimit = 16

    public init(data: [UInt8], coders: CodersManager) throws {
        guard let coder = coders.coder(forData: data) else {
            throw PipelineError.decodingFailed(coder: "-", status: .unsupported, message: "the watermark is in no format a coder reads")
        }
        self.data = data
        self.coders = coders
        isVector = coder.descriptor.capabilities.contains(.vector)
        identity = String(SHA256.digest(data).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined().prefix(24))
        intrinsic = try coders.decode(data: data, options: DecodeOptions(firstFrameOnly: true))
    }

    /// The mark's own size (a vector's intrinsic size).
    public var size: PixelSize { PixelSize(width: intrinsic.width, height: intrinsic.height) }

    /// The mark fitted into `box` (nil: its own size), aspect kept; a vector rendered at that size.
    public func image(fitting box: PixelSize?) throws -> Image {
        guard let box else { return intrinsic }
        if isVector {
            var options = DecodeOptions(firstFrameOnly: true)
            options.thumbnailSize = box
            options.scaleMode = .fit
            options.allowUpscale = true
            return try coders.decode(data: data, options: options)
        }
        return try ImageTransformers.Resize.resample(intrinsic, to: box, mode: .fit, allowUpscale: true)
    }

    /// `image(fitting:)` as premultiplied floats, from the kept sizes when it was made before.
    func pixels(fitting box: PixelSize?) throws -> FloatPixels {
        let key = box ?? PixelSize(width: 0, height: 0)
        if let kept = prepared.withLock({ $0[key] }) { return kept }
        let made = FloatPixels(try image(fitting: box))
        prepared.withLock { kept in
            if kept.count >= Self.preparedLimit { kept.removeAll() }
            kept[key] = made
        }
        return made
    }
}
