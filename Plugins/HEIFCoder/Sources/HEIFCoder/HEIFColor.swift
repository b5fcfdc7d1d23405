import CHEIF
import PluginAPI
import PluginKit

/// The colour a HEIF image states (colr prof/rICC → ICC, colr nclx → CICP; a file may carry both), reported to
/// the host, and written back when an encoder is given colour facts.
enum HEIFColor {
    static func facts(_ handle: OpaquePointer) -> ColorFacts {
        var icc: [UInt8]?
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        if size > 0, size <= 64 << 20 {
            var bytes = [UInt8](repeating: 0, count: size)
            let error = bytes.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
            if error.code == heif_error_Ok { icc = bytes }
        }
        var cicp: (primaries: UInt16, transfer: UInt16, matrix: UInt16, fullRange: Bool)?
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        if heif_image_handle_get_nclx_color_profile(handle, &nclx).code == heif_error_Ok, let nclx {
            cicp = (UInt16(truncatingIfNeeded: nclx.pointee.color_primaries.rawValue),
                    UInt16(truncatingIfNeeded: nclx.pointee.transfer_characteristics.rawValue),
                    UInt16(truncatingIfNeeded: nclx.pointee.matrix_coefficients.rawValue), nclx.pointee.full_range_flag != 0)
            heif_nclx_color_profile_free(nclx)
        }
        return ColorFacts(icc: icc, cicp: cicp)
    }

    /// PQ or HLG (and no ICC profile): decoded at 16 bits whatever the request, for the host's tone-mapping.
    static func isHDR(_ facts: ColorFacts) -> Bool {
        facts.icc == nil && (facts.cicp?.transfer == 16 || facts.cicp?.transfer == 18)
    }

    /// Embeds the frame's ICC profile and returns an nclx profile with its CICP values for the image and the
    /// encoder (nil when it states none); the caller frees it.
    static func apply(_ facts: ColorFacts, to image: OpaquePointer) throws -> UnsafeMutablePointer<heif_color_profile_nclx>? {
        if let icc = facts.icc {
            try HEIFFailure.check(icc.withUnsafeBytes { heif_image_set_raw_color_profile(image, "prof", $0.baseAddress, $0.count) },
                                  "embedding the ICC profile")
        }
        guard let cicp = facts.cicp, let nclx = heif_nclx_color_profile_alloc() else { return nil }
        nclx.pointee.color_primaries = heif_color_primaries(rawValue: UInt32(cicp.primaries))
        nclx.pointee.transfer_characteristics = heif_transfer_characteristics(rawValue: UInt32(cicp.transfer))
        nclx.pointee.matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6
        nclx.pointee.full_range_flag = 1
        return nclx
    }
}
