import PluginAPI

/// The pixel layouts the ABI defines.
public enum PixelFormat: Sendable, Equatable {
    /// 4 bytes per pixel, R G B A.
    case rgba8
    /// 8 bytes per pixel, R G B A as native-endian UInt16.
    case rgba16

    public var bytesPerPixel: Int { self == .rgba8 ? 4 : 8 }
    public var maxValue: UInt16 { self == .rgba8 ? 255 : 65535 }

    init?(abi: ip_pixel_format) {
        switch abi {
        case ip_pixel_format(IP_PIXEL_RGBA8): self = .rgba8
        case ip_pixel_format(IP_PIXEL_RGBA16): self = .rgba16
        default: return nil
        }
    }

    var abi: ip_pixel_format { self == .rgba8 ? ip_pixel_format(IP_PIXEL_RGBA8) : ip_pixel_format(IP_PIXEL_RGBA16) }
}

/// How colour relates to alpha in a buffer.
public enum AlphaMode: Sendable, Equatable {
    case none
    case straight
    case premultiplied

    init?(abi: ip_alpha_mode) {
        switch abi {
        case ip_alpha_mode(IP_ALPHA_NONE): self = .none
        case ip_alpha_mode(IP_ALPHA_STRAIGHT): self = .straight
        case ip_alpha_mode(IP_ALPHA_PREMULTIPLIED): self = .premultiplied
        default: return nil
        }
    }

    var abi: ip_alpha_mode {
        switch self {
        case .none: ip_alpha_mode(IP_ALPHA_NONE)
        case .straight: ip_alpha_mode(IP_ALPHA_STRAIGHT)
        case .premultiplied: ip_alpha_mode(IP_ALPHA_PREMULTIPLIED)
        }
    }
}

/// One pixel widened to 16 bits per channel, in the image's own range (0...255 for RGBA8).
public struct RGBA16Pixel: Sendable, Equatable, CustomStringConvertible {
    public var r: UInt16, g: UInt16, b: UInt16, a: UInt16
    public init(r: UInt16, g: UInt16, b: UInt16, a: UInt16) { self.r = r; self.g = g; self.b = b; self.a = a }
    public var description: String { "(\(r), \(g), \(b), \(a))" }
}

/// A decoded bitmap over a host-allocated buffer.
///
/// The buffer is the one a plugin filled through `ip_host.alloc_pixels`, adopted without copying; images are
/// values that share an immutable buffer, so passing them between tasks is free and safe.
public struct Image: Sendable {
    public let width: Int
    public let height: Int
    /// Bytes from one row to the next.
    public let stride: Int
    public let pixelFormat: PixelFormat
    public let alphaMode: AlphaMode
    /// Display duration of an animation frame, in milliseconds (0 for still images).
    public let durationMilliseconds: Int
    /// Index of the frame or page in its source.
    public let index: Int
    /// The colour space of the pixels when it is not sRGB: the source's, as its coder reported it, until the
    /// finishing step converts (then nil), or kept on request (`ColorOutput.keep`, `.displayP3`) so that encoders
    /// embed it.
    public let color: ColorDescription?
    let storage: PixelStorage

    init(width: Int, height: Int, stride: Int, pixelFormat: PixelFormat, alphaMode: AlphaMode,
         durationMilliseconds: Int = 0, index: Int = 0, color: ColorDescription? = nil, storage: PixelStorage) {
        self.width = width
        self.height = height
        self.stride = stride
        self.pixelFormat = pixelFormat
        self.alphaMode = alphaMode
        self.durationMilliseconds = durationMilliseconds
        self.index = index
        self.color = color
        self.storage = storage
    }

    /// Makes a zeroed image owned by the host (processing results, tests).
    public init(width: Int, height: Int, pixelFormat: PixelFormat = .rgba8, alphaMode: AlphaMode = .straight) throws {
        let stride = width * pixelFormat.bytesPerPixel
        guard width > 0, height > 0, let storage = PixelStorage(byteCount: stride * height) else {
            throw PipelineError.outOfMemory(bytes: width * height * pixelFormat.bytesPerPixel)
        }
        self.init(width: width, height: height, stride: stride, pixelFormat: pixelFormat, alphaMode: alphaMode, storage: storage)
    }

    /// Builds an image from tightly packed bytes (tests, callers with their own pixels).
    public init(width: Int, height: Int, pixelFormat: PixelFormat = .rgba8, alphaMode: AlphaMode = .straight, bytes: [UInt8]) throws {
        try self.init(width: width, height: height, pixelFormat: pixelFormat, alphaMode: alphaMode)
        guard bytes.count == stride * height else {
            throw PipelineError.invalidArgument("expected \(stride * height) bytes for \(width)x\(height), got \(bytes.count)")
        }
        bytes.withUnsafeBytes { storage.pointer.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: bytes.count) }
    }

    /// A copy with other metadata over the same pixels (e.g. frame durations when building an animation).
    public func with(alphaMode: AlphaMode? = nil, durationMilliseconds: Int? = nil, index: Int? = nil) -> Image {
        Image(width: width, height: height, stride: stride, pixelFormat: pixelFormat, alphaMode: alphaMode ?? self.alphaMode,
              durationMilliseconds: durationMilliseconds ?? self.durationMilliseconds, index: index ?? self.index,
              color: color, storage: storage)
    }

    /// The same pixels labelled with another colour space (nil = sRGB). Labelling does not convert: use it for
    /// pixels that really are in that space (a transformer's output keeps its input's space).
    public func with(color: ColorDescription?) -> Image {
        Image(width: width, height: height, stride: stride, pixelFormat: pixelFormat, alphaMode: alphaMode,
              durationMilliseconds: durationMilliseconds, index: index, color: color, storage: storage)
    }

    public var hasAlpha: Bool { alphaMode != .none }
    /// Bytes the pixels occupy (stride x height).
    public var byteCount: Int { stride * height }

    /// Reads one pixel. Out-of-range coordinates trap, like an array index.
    public func pixel(x: Int, y: Int) -> RGBA16Pixel {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)x\(height)")
        let row = storage.pointer + y * stride
        switch pixelFormat {
        case .rgba8:
            let p = row + x * 4
            return RGBA16Pixel(r: UInt16(p[0]), g: UInt16(p[1]), b: UInt16(p[2]), a: UInt16(p[3]))
        case .rgba16:
            let p = UnsafeRawPointer(row + x * 8).assumingMemoryBound(to: UInt16.self)
            return RGBA16Pixel(r: p[0], g: p[1], b: p[2], a: p[3])
        }
    }

    /// The pixels as tightly packed bytes (rows without padding).
    public var bytes: [UInt8] {
        let rowBytes = width * pixelFormat.bytesPerPixel
        var out = [UInt8](repeating: 0, count: rowBytes * height)
        out.withUnsafeMutableBytes { target in
            for y in 0..<height {
                (target.baseAddress! + y * rowBytes).copyMemory(from: storage.pointer + y * stride, byteCount: rowBytes)
            }
        }
        return out
    }

    /// Read access to the buffer for processing code.
    public func withUnsafeRows<R>(_ body: (UnsafePointer<UInt8>) throws -> R) rethrows -> R {
        try body(storage.pointer)
    }

    /// Write access while the image is still only known to its creator.
    func withUnsafeMutableRows<R>(_ body: (UnsafeMutablePointer<UInt8>) throws -> R) rethrows -> R {
        try body(storage.pointer)
    }
}
