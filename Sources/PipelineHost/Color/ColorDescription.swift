import FoundationEssentials
import PluginAPI

/// What a source says about its colour, as its coder reported it: an embedded ICC profile, CICP code points
/// (AVIF/HEIF nclx), or PNG's sRGB / gAMA / cHRM chunks. Nothing stated means sRGB, as on the web.
///
/// Precedence follows the formats' own rules (ISO/IEC 23008-12, PNG): ICC first, then CICP, then sRGB, then
/// gamma and chromaticities.
public struct ColorDescription: Sendable, Hashable, Codable {
    /// The ICC profile bytes, as embedded.
    public var iccProfile: [UInt8]?
    public var cicp: CICP?
    /// PNG's sRGB chunk.
    public var declaresSRGB: Bool
    /// PNG gAMA: the encoding gamma (0.45455 for 1/2.2).
    public var gamma: Double?
    /// PNG cHRM: white, red, green, blue as (x, y).
    public var chromaticities: Chromaticities?

    public init(iccProfile: [UInt8]? = nil, cicp: CICP? = nil, declaresSRGB: Bool = false, gamma: Double? = nil,
                chromaticities: Chromaticities? = nil) {
        self.iccProfile = iccProfile
        self.cicp = cicp
        self.declaresSRGB = declaresSRGB
        self.gamma = gamma
        self.chromaticities = chromaticities
    }

    public var isEmpty: Bool {
        iccProfile == nil && cicp == nil && !declaresSRGB && gamma == nil && chromaticities == nil
    }

    private enum CodingKeys: String, CodingKey { case iccProfile, cicp, declaresSRGB, gamma, chromaticities }

    /// The profile travels as base64 (JSON output of `info`, the worker protocol), not as an array of numbers.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        iccProfile = try c.decodeIfPresent(Data.self, forKey: .iccProfile).map { Array($0) }
        cicp = try c.decodeIfPresent(CICP.self, forKey: .cicp)
        declaresSRGB = try c.decodeIfPresent(Bool.self, forKey: .declaresSRGB) ?? false
        gamma = try c.decodeIfPresent(Double.self, forKey: .gamma)
        chromaticities = try c.decodeIfPresent(Chromaticities.self, forKey: .chromaticities)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(iccProfile.map { Data($0) }, forKey: .iccProfile)
        try c.encodeIfPresent(cicp, forKey: .cicp)
        if declaresSRGB { try c.encode(true, forKey: .declaresSRGB) }
        try c.encodeIfPresent(gamma, forKey: .gamma)
        try c.encodeIfPresent(chromaticities, forKey: .chromaticities)
    }

    /// True when the pixels hold light levels beyond SDR white (PQ or HLG transfer, and no ICC profile to say
    /// otherwise).
    public var isHDR: Bool { iccProfile == nil && (cicp?.isHDR ?? false) }
}

/// ITU-T H.273 code points.
public struct CICP: Sendable, Hashable, Codable, CustomStringConvertible {
    public var primaries: Int
    public var transfer: Int
    public var matrix: Int
    public var fullRange: Bool

    public init(primaries: Int, transfer: Int, matrix: Int, fullRange: Bool) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.fullRange = fullRange
    }

    public static let pq = 16
    public static let hlg = 18
    public var isHDR: Bool { transfer == Self.pq || transfer == Self.hlg }

    /// "12/13/6 full" — the avifenc --cicp notation plus the range.
    public var description: String { "\(primaries)/\(transfer)/\(matrix) \(fullRange ? "full" : "limited")" }
}

/// CIE xy chromaticities of a white point and three primaries.
public struct Chromaticities: Sendable, Hashable, Codable {
    public var white: XY, red: XY, green: XY, blue: XY
    public struct XY: Sendable, Hashable, Codable {
        public var x: Double, y: Double
        public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
    }
    public init(white: XY, red: XY, green: XY, blue: XY) {
        self.white = white; self.red = red; self.green = green; self.blue = blue
    }
}

extension ColorDescription {
    /// Reads the colour fields an `ip_image` or `ip_image_info` carries; `takeICC` moves the profile buffer out of
    /// the call (nil when the plugin pointed at memory that is not its call's). Nil when nothing is stated.
    init?(flags: UInt32, iccSize: UInt32, icc: UnsafeMutablePointer<UInt8>?, cicp: (UInt16, UInt16, UInt16, UInt16),
          gamma: UInt32, chromaticities: [UInt32], takeICC: (UnsafeMutablePointer<UInt8>?, Int) -> [UInt8]?) throws {
        guard flags != 0 else { return nil }
        self.init()
        if flags & UInt32(IP_COLOR_ICC) != 0, iccSize > 0 {
            guard let bytes = takeICC(icc, Int(iccSize)) else {
                throw ColorDescriptionError("the ICC profile was not allocated with alloc_bytes for this call, or is shorter than icc_size")
            }
            iccProfile = bytes
        }
        if flags & UInt32(IP_COLOR_CICP) != 0 {
            self.cicp = CICP(primaries: Int(cicp.0), transfer: Int(cicp.1), matrix: Int(cicp.2), fullRange: cicp.3 != 0)
        }
        declaresSRGB = flags & UInt32(IP_COLOR_SRGB) != 0
        if flags & UInt32(IP_COLOR_GAMMA) != 0, gamma > 0 { self.gamma = Double(gamma) / 100_000 }
        if flags & UInt32(IP_COLOR_CHROMATICITIES) != 0, chromaticities.count == 8, chromaticities.allSatisfy({ $0 > 0 }) {
            let v = chromaticities.map { Double($0) / 100_000 }
            self.chromaticities = Chromaticities(white: .init(v[0], v[1]), red: .init(v[2], v[3]),
                                                 green: .init(v[4], v[5]), blue: .init(v[6], v[7]))
        }
        if isEmpty { return nil }
    }

    /// Writes the facts into an `ip_image` for an encoder; the ICC bytes are borrowed from `icc` for the call.
    func write(into image: inout ip_image, icc: UnsafeMutablePointer<UInt8>?) {
        image.color_flags = 0
        if let iccProfile, let icc {
            image.color_flags |= UInt32(IP_COLOR_ICC)
            image.icc_profile = icc
            image.icc_size = UInt32(iccProfile.count)
        }
        if let cicp {
            image.color_flags |= UInt32(IP_COLOR_CICP)
            image.cicp_primaries = UInt16(clamping: cicp.primaries)
            image.cicp_transfer = UInt16(clamping: cicp.transfer)
            image.cicp_matrix = UInt16(clamping: cicp.matrix)
            image.cicp_full_range = cicp.fullRange ? 1 : 0
        }
        if declaresSRGB { image.color_flags |= UInt32(IP_COLOR_SRGB) }
    }
}

struct ColorDescriptionError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
