extension ColorDescription {
    /// One line for people: "ICC 'Display P3' (rgb, 536 bytes); CICP 12/13/6 full: Display P3 primaries, sRGB
    /// transfer, BT.601 matrix".
    public var summary: String {
        var parts: [String] = []
        if let icc = iccProfile {
            let profile = LCMSProfile(icc: icc)
            let name = profile?.description.map { "'\($0)'" } ?? "unreadable"
            let space = profile.map { ColorProfiles.signatureName($0.colorSpace.rawValue) } ?? "?"
            parts.append("ICC \(name) (\(space), \(icc.count) bytes)")
        }
        if let cicp {
            parts.append("CICP \(cicp): \(cicp.primariesName) primaries, \(cicp.transferName) transfer, \(cicp.matrixName) matrix")
        }
        if declaresSRGB { parts.append("sRGB chunk") }
        if let gamma { parts.append("gamma \(Double(Int(gamma * 100_000)) / 100_000)") }
        if let c = chromaticities {
            parts.append("chromaticities white \(c.white.x),\(c.white.y) red \(c.red.x),\(c.red.y) green \(c.green.x),\(c.green.y) blue \(c.blue.x),\(c.blue.y)")
        }
        return parts.isEmpty ? "not stated (read as sRGB)" : parts.joined(separator: "; ")
    }
}

extension CICP {
    /// ITU-T H.273 names of the code points ("code N" for the ones without a common name).
    public var primariesName: String {
        [1: "BT.709/sRGB", 2: "unspecified", 4: "BT.470M", 5: "BT.601 (625)", 6: "BT.601 (525)", 7: "SMPTE 240M",
         8: "generic film", 9: "BT.2020", 10: "XYZ", 11: "DCI-P3", 12: "Display P3", 22: "EBU 3213"][primaries] ?? "code \(primaries)"
    }
    public var transferName: String {
        [1: "BT.709", 2: "unspecified", 4: "gamma 2.2", 5: "gamma 2.8", 6: "BT.601", 7: "SMPTE 240M", 8: "linear",
         13: "sRGB", 14: "BT.2020 (10-bit)", 15: "BT.2020 (12-bit)", 16: "PQ (HDR)", 18: "HLG (HDR)"][transfer] ?? "code \(transfer)"
    }
    public var matrixName: String {
        [0: "identity (RGB)", 1: "BT.709", 2: "unspecified", 5: "BT.601", 6: "BT.601", 9: "BT.2020 non-constant",
         10: "BT.2020 constant", 12: "chromaticity-derived"][matrix] ?? "code \(matrix)"
    }
}
