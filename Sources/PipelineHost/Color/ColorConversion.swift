import CLCMS2
import Synchronization

/// The colour step of finishing: converts pixels from the space their source states to the requested output.
///
/// It runs after resampling, on the thumbnail rather than the full decode (a 256-px thumbnail of a 12 MP photo
/// converts 180 times fewer pixels). Resampling therefore happens in the source's encoded space, as in libvips'
/// thumbnail without --linear; converting first would only change edge pixels by rounding (see the colour tests).
enum ColorConversion {
    /// `image` in the `output` space; `eightBit` asks for RGBA8 even from RGBA16 pixels (an HDR source decoded at
    /// 16 bits for precision when the request wanted 8).
    static func apply(_ image: Image, output: ColorOutput, eightBit: Bool, limits: DecodeLimits) throws -> Image {
        let target: ColorDescription?
        switch output {
        case .keep: return image
        case .srgb: target = nil
        case .displayP3: target = ColorDescription(iccProfile: ColorProfiles.displayP3ICC)
        }
        let outputFormat: PixelFormat = eightBit ? .rgba8 : image.pixelFormat
        if image.color == target, outputFormat == image.pixelFormat { return image }
        guard let transform = transforms.transform(from: image.color, toP3: output == .displayP3,
                                                       input: image.pixelFormat, output: outputFormat, alpha: image.alphaMode) else {
            return outputFormat == image.pixelFormat ? image.with(color: target) : try depthOnly(image, to: outputFormat, limits: limits).with(color: target)
        }
        try limits.checkMemory(holding: image.byteCount, adding: image.width * image.height * outputFormat.bytesPerPixel)
        var result = try Image(width: image.width, height: image.height, pixelFormat: outputFormat, alphaMode: image.alphaMode)
        image.withUnsafeRows { input in
            result.withUnsafeMutableRows { out in
                transform.run(input, image, out, result)
            }
        }
        result = result.with(color: target)
        return result.with(durationMilliseconds: image.durationMilliseconds, index: image.index)
    }

    /// RGBA16 → RGBA8 without a colour change (an HDR-capable decode of an sRGB source).
    private static func depthOnly(_ image: Image, to format: PixelFormat, limits: DecodeLimits) throws -> Image {
        try limits.checkMemory(holding: image.byteCount, adding: image.width * image.height * format.bytesPerPixel)
        let result = try Image(width: image.width, height: image.height, pixelFormat: format, alphaMode: image.alphaMode)
        image.withUnsafeRows { input in
            result.withUnsafeMutableRows { out in
                for y in 0..<image.height {
                    let row = UnsafeRawPointer(input + y * image.stride).assumingMemoryBound(to: UInt16.self)
                    let target = out + y * result.stride
                    for i in 0..<image.width * 4 { target[i] = UInt8((UInt32(row[i]) * 255 + 32767) / 65535) }
                }
            }
        }
        return result.with(durationMilliseconds: image.durationMilliseconds, index: image.index)
    }

    /// Transforms are slow to build (a millisecond or more) and fast to run: they are kept per source description,
    /// target and pixel layout. A few dozen distinct profiles cover a photo library; the cache starts over past 64.
    static let transforms = TransformCache()

    /// One line per distinct reason a description could not be used (the pixels then pass as sRGB).
    static let warned = Mutex<Set<String>>([])
}

/// A built conversion: a Little CMS transform, or a gray lookup table for gray ICC profiles on RGBA pixels.
enum PreparedConversion: Sendable {
    case lcms(LCMSTransform)
    /// Per channel value → output value, for R = G = B pixels whose profile is gray.
    case grayTable([UInt16], outputFormat: PixelFormat)

    func run(_ input: UnsafePointer<UInt8>, _ image: Image, _ output: UnsafeMutablePointer<UInt8>, _ result: Image) {
        switch self {
        case .lcms(let transform):
            transform.run(input, inputStride: image.stride, output, outputStride: result.stride,
                          width: image.width, height: image.height)
        case .grayTable(let table, let outputFormat):
            for y in 0..<image.height {
                for x in 0..<image.width {
                    for channel in 0..<4 {
                        let value: Int = image.pixelFormat == .rgba8
                            ? Int(input[y * image.stride + x * 4 + channel])
                            : Int(UnsafeRawPointer(input + y * image.stride).assumingMemoryBound(to: UInt16.self)[x * 4 + channel])
                        let mapped = channel == 3 ? (outputFormat == image.pixelFormat ? value
                            : image.pixelFormat == .rgba16 ? (value * 255 + 32767) / 65535 : value * 257) : Int(table[value])
                        if outputFormat == .rgba8 {
                            output[y * result.stride + x * 4 + channel] = UInt8(clamping: mapped)
                        } else {
                            UnsafeMutableRawPointer(output + y * result.stride).assumingMemoryBound(to: UInt16.self)[x * 4 + channel] = UInt16(clamping: mapped)
                        }
                    }
                }
            }
        }
    }
}

final class TransformCache: Sendable {
    private struct Key: Hashable {
        var source: ColorDescription?
        var toP3: Bool
        var input: PixelFormat
        var output: PixelFormat
        var premultiplied: Bool
    }
    private let entries = Mutex<[Key: PreparedConversion?]>([:])

    /// The conversion, or nil when there is nothing to convert (already in the target, or an unusable
    /// description that passes as sRGB after one warning).
    func transform(from source: ColorDescription?, toP3: Bool, input: PixelFormat, output: PixelFormat,
                   alpha: AlphaMode) -> PreparedConversion? {
        let key = Key(source: source, toP3: toP3, input: input, output: output, premultiplied: alpha == .premultiplied)
        return entries.withLock { cache in
            if let cached = cache[key] { return cached }
            if cache.count >= 64 { cache.removeAll() }
            let built = Self.build(key)
            cache[key] = built
            return built
        }
    }

    /// An ICC profile equivalent to a description without one (CICP, PNG chunks), for encoders that store only
    /// ICC; nil when the description means sRGB. (Built under the cache's lock, like every profile here.)
    func iccProfile(forDescriptionWithoutOne color: ColorDescription) -> [UInt8]? {
        entries.withLock { _ in ColorProfiles.source(for: color).profile?.iccBytes }
    }

    private static func build(_ key: Key) -> PreparedConversion? {
        var sourceProfile: LCMSProfile?
        if let source = key.source {
            let (profile, unusable) = ColorProfiles.source(for: source)
            if let unusable {
                let first = ColorConversion.warned.withLock { $0.insert(unusable).inserted }
                if first { HostLog.write(level: 2, source: "imagepipe.color", message: "colour not converted: \(unusable); read as sRGB") }
            }
            sourceProfile = profile
        }
        if sourceProfile == nil, !key.toP3 { return nil }
        let from = sourceProfile ?? LCMSProfile.sRGB()
        let to = key.toP3 ? ColorProfiles.displayP3() : LCMSProfile.sRGB()
        if from.colorSpace == cmsSigGrayData { return grayTable(from: from, to: to, key: key) }
        func layout(_ format: PixelFormat) -> cmsUInt32Number {
            switch (format, key.premultiplied) {
            case (.rgba8, false): ip_lcms_rgba_8()
            case (.rgba8, true): ip_lcms_rgba_8_premultiplied()
            case (.rgba16, false): ip_lcms_rgba_16()
            case (.rgba16, true): ip_lcms_rgba_16_premultiplied()
            }
        }
        return LCMSTransform(from: from, layout(key.input), to: to, layout(key.output), copyAlpha: true).map { .lcms($0) }
    }

    /// Gray profile: each level through lcms once (gray → RGB, the neutral axis), then a table per channel.
    private static func grayTable(from: LCMSProfile, to: LCMSProfile, key: Key) -> PreparedConversion? {
        guard let transform = LCMSTransform(from: from, ip_lcms_gray_16(), to: to, ip_lcms_rgb_16(), copyAlpha: false) else { return nil }
        let levels = key.input == .rgba8 ? 256 : 65536
        let gray: [UInt16] = (0..<levels).map { UInt16(key.input == .rgba8 ? $0 * 257 : $0) }
        var rgb = [UInt16](repeating: 0, count: levels * 3)
        gray.withUnsafeBytes { input in
            rgb.withUnsafeMutableBytes { output in
                transform.run(input.baseAddress!, inputStride: levels * 2, output.baseAddress!, outputStride: levels * 6,
                              width: levels, height: 1)
            }
        }
        // The green channel of the neutral result carries the luminance; a neutral stays neutral.
        let table = (0..<levels).map { level -> UInt16 in
            let value = rgb[level * 3 + 1]
            return key.output == .rgba8 ? UInt16((UInt32(value) * 255 + 32767) / 65535) : value
        }
        return .grayTable(table, outputFormat: key.output)
    }
}
