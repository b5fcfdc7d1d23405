import CLCMS2

/// Little CMS profiles for what sources state: an ICC profile as is; CICP and PNG chunks rebuilt as matrix/shaper
/// profiles from their primaries and transfer.
enum ColorProfiles {
    /// The profile to convert from, or nil when the description means sRGB (nothing to do) or cannot be used
    /// (`unusable` then says why, for one log line).
    static func source(for color: ColorDescription) -> (profile: LCMSProfile?, unusable: String?) {
        if let icc = color.iccProfile {
            guard let profile = LCMSProfile(icc: icc) else { return (nil, "its ICC profile could not be parsed") }
            guard profile.colorSpace == cmsSigRgbData || profile.colorSpace == cmsSigGrayData else {
                return (nil, "its ICC profile is for \(signatureName(profile.colorSpace.rawValue)) data, not RGB or gray")
            }
            return (profile, nil)
        }
        if let cicp = color.cicp {
            let primaries = chromaticities(cicpPrimaries: cicp.primaries)
            guard let primaries else { return (nil, "CICP colour primaries \(cicp.primaries) are not supported") }
            if cicp.isHDR {
                guard let curve = LCMSToneCurve.tabulated(HDRToneCurve.samples(transfer: cicp.transfer)) else {
                    return (nil, "the HDR tone curve could not be built")
                }
                return (LCMSProfile.rgb(primaries, curve: curve), nil)
            }
            guard let curve = toneCurve(cicpTransfer: cicp.transfer) else {
                return (nil, "CICP transfer characteristics \(cicp.transfer) are not supported")
            }
            if primaries == Self.bt709, curve.isSRGBLike { return (nil, nil) }
            return (LCMSProfile.rgb(primaries, curve: curve.curve), nil)
        }
        if color.declaresSRGB { return (nil, nil) }
        let gamma = color.gamma
        let primaries = color.chromaticities
        // gAMA 1/2.2 with sRGB's chromaticities (or none) is how many writers (ImageMagick among them) say "sRGB":
        // libpng's own check reads it so, and so do browsers. Only a different gamma or gamut is converted.
        let srgbGamma = gamma.map { abs($0 - 1 / 2.2) < 0.005 } ?? true
        let srgbPrimaries = primaries.map { $0.isClose(to: bt709, tolerance: 0.01) } ?? true
        if srgbGamma && srgbPrimaries { return (nil, nil) }
        let curve = gamma.flatMap { LCMSToneCurve.gamma(1 / $0) } ?? LCMSToneCurve.sRGB
        return (LCMSProfile.rgb(primaries ?? bt709, curve: curve), nil)
    }

    /// Display P3: the P3 primaries with the D65 white and the sRGB curve (Apple's definition).
    static func displayP3() -> LCMSProfile {
        LCMSProfile.rgb(displayP3Primaries, curve: .sRGB, description: "Display P3")!
    }

    /// The ICC bytes that label Display P3 results (built once).
    static let displayP3ICC: [UInt8] = displayP3().iccBytes ?? []

    static let bt709 = Chromaticities(white: .init(0.3127, 0.3290), red: .init(0.64, 0.33), green: .init(0.30, 0.60),
                                      blue: .init(0.15, 0.06))
    static let displayP3Primaries = Chromaticities(white: .init(0.3127, 0.3290), red: .init(0.680, 0.320),
                                                   green: .init(0.265, 0.690), blue: .init(0.150, 0.060))

    /// ITU-T H.273 ColourPrimaries → chromaticities (2, unspecified, reads as BT.709 like everything untagged).
    static func chromaticities(cicpPrimaries code: Int) -> Chromaticities? {
        let d65 = Chromaticities.XY(0.3127, 0.3290)
        switch code {
        case 1, 2: return bt709
        case 4: return .init(white: .init(0.310, 0.316), red: .init(0.67, 0.33), green: .init(0.21, 0.71), blue: .init(0.14, 0.08))
        case 5: return .init(white: d65, red: .init(0.64, 0.33), green: .init(0.29, 0.60), blue: .init(0.15, 0.06))
        case 6, 7: return .init(white: d65, red: .init(0.630, 0.340), green: .init(0.310, 0.595), blue: .init(0.155, 0.070))
        case 9: return .init(white: d65, red: .init(0.708, 0.292), green: .init(0.170, 0.797), blue: .init(0.131, 0.046))
        case 11: return .init(white: .init(0.314, 0.351), red: .init(0.680, 0.320), green: .init(0.265, 0.690), blue: .init(0.150, 0.060))
        case 12: return displayP3Primaries
        case 22: return .init(white: d65, red: .init(0.630, 0.340), green: .init(0.295, 0.605), blue: .init(0.155, 0.077))
        default: return nil
        }
    }

    /// ITU-T H.273 TransferCharacteristics → a decoding curve. The BT.709 family (1, 6, 14, 15) is read with the
    /// sRGB curve, as browsers and image viewers do for stills (its OETF describes a camera, not a display).
    static func toneCurve(cicpTransfer code: Int) -> (curve: LCMSToneCurve, isSRGBLike: Bool)? {
        switch code {
        case 1, 2, 6, 13, 14, 15: return (.sRGB, true)
        case 4: return LCMSToneCurve.gamma(2.2).map { ($0, false) }
        case 5: return LCMSToneCurve.gamma(2.8).map { ($0, false) }
        case 8: return LCMSToneCurve.gamma(1).map { ($0, false) }
        default: return nil
        }
    }

    /// "cmyk" for a four-character ICC signature.
    static func signatureName(_ value: UInt32) -> String {
        let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
        return String(decoding: bytes.filter { $0 != 0x20 }, as: UTF8.self).lowercased()
    }
}

extension Chromaticities {
    /// Every coordinate within `tolerance` of the other's.
    func isClose(to other: Chromaticities, tolerance: Double) -> Bool {
        let mine = [white, red, green, blue], theirs = [other.white, other.red, other.green, other.blue]
        return zip(mine, theirs).allSatisfy { abs($0.x - $1.x) <= tolerance && abs($0.y - $1.y) <= tolerance }
    }
}
