import HostGeometry
import PluginAPI

/// A size in pixels. A 0 on one side means "derived from the other side" in requests.
public struct PixelSize: Sendable, Hashable, Codable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public var description: String { "\(width)x\(height)" }

    /// Parses "WxH" (either side may be 0, but not both).
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w >= 0, h >= 0, w > 0 || h > 0,
              w <= 1 << 20, h <= 1 << 20 else { return nil }
        self.init(width: w, height: h)
    }
}

/// How a source is placed in a requested box (the ABI's ip_scale_mode).
public enum ScaleMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// Keep the aspect ratio, fit inside the box (the default).
    case fit
    /// Stretch to exactly the box.
    case fill
    /// Keep the aspect ratio, cover the box and crop the overflow centred.
    case aspectFill = "aspect-fill"

    var abi: ip_scale_mode {
        switch self {
        case .fit: ip_scale_mode(IP_SCALE_FIT)
        case .fill: ip_scale_mode(IP_SCALE_FILL)
        case .aspectFill: ip_scale_mode(IP_SCALE_ASPECT_FILL)
        }
    }
}

/// Where a source lands on the output: the host's one C definition (HostGeometry), which plugins reach through
/// the `ip_host.place` service, so plugins and host agree.
public struct Placement: Sendable, Equatable {
    public let outputWidth: Int
    public let outputHeight: Int
    public let scaleX: Double
    public let scaleY: Double
    public let offsetX: Double
    public let offsetY: Double

    public init(sourceWidth: Int, sourceHeight: Int, request: PixelSize?, mode: ScaleMode, allowUpscale: Bool) {
        self.init(sourceWidth: Double(sourceWidth), sourceHeight: Double(sourceHeight), request: request, mode: mode.abi,
                  allowUpscale: allowUpscale)
    }

    /// For sources with fractional sizes (vectors) and raw ABI modes (the tester, the `place` service).
    public init(sourceWidth: Double, sourceHeight: Double, request: PixelSize?, mode: ip_scale_mode, allowUpscale: Bool) {
        var p = ip_placement()
        host_geometry_place(sourceWidth, sourceHeight, UInt32(clamping: request?.width ?? 0),
                            UInt32(clamping: request?.height ?? 0), mode, allowUpscale ? 1 : 0, &p)
        outputWidth = Int(p.out_width)
        outputHeight = Int(p.out_height)
        scaleX = p.scale_x
        scaleY = p.scale_y
        offsetX = p.offset_x
        offsetY = p.offset_y
    }

    var isIdentity: Bool { scaleX == 1 && scaleY == 1 && offsetX == 0 && offsetY == 0 }

    /// The same scale with the overflow of an aspect-fill cut per `gravity` instead of equally on both sides.
    func placed(by gravity: Gravity, sourceWidth: Int, sourceHeight: Int) -> Placement {
        guard gravity != .center else { return self }
        let (fx, fy) = gravity.fractions
        return Placement(outputWidth: outputWidth, outputHeight: outputHeight, scaleX: scaleX, scaleY: scaleY,
                         offsetX: (Double(outputWidth) - Double(sourceWidth) * scaleX) * fx,
                         offsetY: (Double(outputHeight) - Double(sourceHeight) * scaleY) * fy)
    }

    private init(outputWidth: Int, outputHeight: Int, scaleX: Double, scaleY: Double, offsetX: Double, offsetY: Double) {
        self.outputWidth = outputWidth; self.outputHeight = outputHeight
        self.scaleX = scaleX; self.scaleY = scaleY; self.offsetX = offsetX; self.offsetY = offsetY
    }
}

/// A straight (non-premultiplied) 8-bit colour, e.g. a tint.
public struct RGBAColor: Sendable, Hashable, Codable, CustomStringConvertible {
    public var red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red; self.green = green; self.blue = blue; self.alpha = alpha
    }

    /// 0xRRGGBBAA, as the ABI's tint_rgba.
    public var packed: UInt32 { UInt32(red) << 24 | UInt32(green) << 16 | UInt32(blue) << 8 | UInt32(alpha) }

    public var description: String {
        let hex = String(packed, radix: 16)
        return "#" + String(repeating: "0", count: 8 - hex.count) + hex
    }
}
