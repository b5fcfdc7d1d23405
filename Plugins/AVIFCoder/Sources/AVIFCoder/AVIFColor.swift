import CAVIF
import PluginAPI
import PluginKit

/// The colour an AVIF states (colr prof/rICC → ICC; colr nclx → CICP), reported to the host, and written back
/// when an encoder is given colour facts.
enum AVIFColor {
    static func facts(_ image: avifImage) -> ColorFacts {
        let icc = image.icc.size > 0 && image.icc.data != nil
            ? Array(UnsafeBufferPointer(start: image.icc.data, count: image.icc.size)) : nil
        return ColorFacts(icc: icc, cicp: (UInt16(image.colorPrimaries), UInt16(image.transferCharacteristics),
                                           UInt16(image.matrixCoefficients), image.yuvRange == AVIF_RANGE_FULL))
    }

    /// PQ or HLG: such pixels are decoded at 16 bits whatever the request, so the host's tone-mapping starts from
    /// the file's precision, not from 8-bit steps of a curve that spends most codes on highlights.
    static func isHDR(_ image: avifImage) -> Bool {
        image.transferCharacteristics == AVIF_TRANSFER_CHARACTERISTICS_SMPTE2084
            || image.transferCharacteristics == AVIF_TRANSFER_CHARACTERISTICS_HLG
    }

    /// Applies a frame's colour facts to the image being encoded: the ICC profile is embedded, CICP values
    /// replace the sRGB defaults (the pixels are in that space), so a kept PQ image stays PQ.
    static func apply(_ facts: ColorFacts, to image: UnsafeMutablePointer<avifImage>) {
        if let icc = facts.icc {
            icc.withUnsafeBufferPointer { avifImageSetProfileICC(image, $0.baseAddress, $0.count) }
        }
        if let cicp = facts.cicp {
            image.pointee.colorPrimaries = avifColorPrimaries(cicp.primaries)
            image.pointee.transferCharacteristics = avifTransferCharacteristics(cicp.transfer)
        }
    }
}
