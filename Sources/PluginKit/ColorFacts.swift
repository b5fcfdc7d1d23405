import PluginAPI

/// What a coder found about a source's colour, written into the ABI's colour fields of an `ip_image` or
/// `ip_image_info`, and read back from a frame an encoder receives. Coders report; the host converts.
public struct ColorFacts: Sendable, Equatable {
    public var icc: [UInt8]?
    /// ITU-T H.273 (primaries, transfer, matrix, full range).
    public var cicp: (primaries: UInt16, transfer: UInt16, matrix: UInt16, fullRange: Bool)?
    public var declaresSRGB = false

    public init(icc: [UInt8]? = nil, cicp: (primaries: UInt16, transfer: UInt16, matrix: UInt16, fullRange: Bool)? = nil,
                declaresSRGB: Bool = false) {
        self.icc = icc?.isEmpty == true ? nil : icc
        self.cicp = cicp
        self.declaresSRGB = declaresSRGB
    }

    public static func == (a: ColorFacts, b: ColorFacts) -> Bool {
        a.icc == b.icc && a.declaresSRGB == b.declaresSRGB && a.cicp?.primaries == b.cicp?.primaries
            && a.cicp?.transfer == b.cicp?.transfer && a.cicp?.matrix == b.cicp?.matrix && a.cicp?.fullRange == b.cicp?.fullRange
    }

    public var isEmpty: Bool { icc == nil && cicp == nil && !declaresSRGB }

    /// Writes the facts into a decode result. The profile is copied into host memory (`alloc_bytes`); when the
    /// host is too old to offer it or refuses, the profile is left out (the image then reads as sRGB) rather than
    /// failing the decode.
    public func write(into image: inout ip_image, call: OpaquePointer?) {
        var flags: UInt32 = 0
        if let icc, let buffer = Host.allocateBytes(call, count: icc.count) {
            buffer.update(from: icc, count: icc.count)
            image.icc_profile = buffer
            image.icc_size = UInt32(icc.count)
            flags |= UInt32(IP_COLOR_ICC)
        }
        if let cicp {
            image.cicp_primaries = cicp.primaries
            image.cicp_transfer = cicp.transfer
            image.cicp_matrix = cicp.matrix
            image.cicp_full_range = cicp.fullRange ? 1 : 0
            flags |= UInt32(IP_COLOR_CICP)
        }
        if declaresSRGB { flags |= UInt32(IP_COLOR_SRGB) }
        image.color_flags = flags
    }

    /// The same for a probe's answer.
    public func write(into info: inout ip_image_info, call: OpaquePointer?) {
        var image = ip_image()
        write(into: &image, call: call)
        info.copyColor(from: image)
    }

    /// The facts a frame given to an encoder carries (reading only the fields its struct_size covers).
    public init(encoding frame: ip_image) {
        self.init()
        guard frame.struct_size >= UInt32(MemoryLayout<ip_image>.offset(of: \ip_image.chromaticities)!) else { return }
        if frame.color_flags & UInt32(IP_COLOR_ICC) != 0, let profile = frame.icc_profile, frame.icc_size > 0 {
            icc = Array(UnsafeBufferPointer(start: profile, count: Int(frame.icc_size)))
        }
        if frame.color_flags & UInt32(IP_COLOR_CICP) != 0 {
            cicp = (frame.cicp_primaries, frame.cicp_transfer, frame.cicp_matrix, frame.cicp_full_range != 0)
        }
        declaresSRGB = frame.color_flags & UInt32(IP_COLOR_SRGB) != 0
    }
}

extension ip_image_info {
    /// Takes every colour field of an image (the two structs carry the same fields with the same meaning), so a
    /// coder fills them once for decode and probe.
    public mutating func copyColor(from image: ip_image) {
        color_flags = image.color_flags
        icc_profile = image.icc_profile
        icc_size = image.icc_size
        cicp_primaries = image.cicp_primaries
        cicp_transfer = image.cicp_transfer
        cicp_matrix = image.cicp_matrix
        cicp_full_range = image.cicp_full_range
        gamma = image.gamma
        chromaticities = image.chromaticities
    }
}
