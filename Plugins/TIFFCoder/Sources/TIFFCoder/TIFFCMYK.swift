import CTIFF
import PluginAPI
import PluginKit

/// CMYK pages through their own ICC profile (Little CMS, into sRGB), as the JPEG coder converts CMYK JPEGs; the
/// host only ever sees RGBA, so the conversion happens here. libtiff's RGBA interface converts CMYK naively
/// (R = 255 − C − K …), which is what a page without a CMYK profile still gets, as ImageMagick and browsers without
/// a profile show it.
///
/// Taken: 8-bit CMYK (InkSet 1), 4 samples, or 5 with unassociated alpha (copied through), contiguous or planar,
/// with an ICC profile whose colour space is CMYK. Anything else stays with the RGBA interface.
final class TIFFCMYK {
    private let transform: UnsafeMutableRawPointer
    let hasAlpha: Bool

    /// The converter for the current page, or nil when the page is not such a CMYK page.
    init?(_ file: TIFFFile) {
        guard file.photometric == Int(PHOTOMETRIC_SEPARATED), (file.u16(Int32(TIFFTAG_INKSET)) ?? 1) == UInt16(INKSET_CMYK),
              file.u16(Int32(TIFFTAG_BITSPERSAMPLE)) == 8, (file.u16(Int32(TIFFTAG_SAMPLEFORMAT)) ?? 1) == UInt16(SAMPLEFORMAT_UINT),
              let samples = file.u16(Int32(TIFFTAG_SAMPLESPERPIXEL)), samples == 4 || (samples == 5 && file.hasAlpha && !file.alphaIsAssociated),
              let profile = file.rawICCProfile else { return nil }
        let alpha = samples == 5
        guard let transform = profile.withUnsafeBytes({ ip_tiff_cmyk_transform_create($0.baseAddress, UInt32($0.count), alpha ? 1 : 0) })
        else { return nil }
        hasAlpha = alpha
        self.transform = transform
    }

    deinit { ip_tiff_cmyk_transform_destroy(transform) }

    /// The stored page as packed RGBA8 rows (straight alpha when the page has it).
    func read(_ file: TIFFFile, call: OpaquePointer?) throws -> [UInt8] {
        let (cmyk, samples) = try TIFFBlockPixels.interleaved(file, sampleBytes: 1, call: call)
        let (width, height) = file.storedSize
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        cmyk.withUnsafeBytes { source in
            rgba.withUnsafeMutableBytes { target in
                for y in 0..<height {
                    ip_tiff_cmyk_transform_run(transform, source.baseAddress! + y * width * samples, target.baseAddress! + y * width * 4,
                                               UInt32(width))
                }
            }
        }
        return rgba
    }
}
