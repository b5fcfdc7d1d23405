/// What an encoder is told about a frame's colour. A frame labelled with a space other than sRGB (kept on
/// request, or converted to Display P3) must leave the encoder in a form its format can state:
/// - AVIF stores ICC profiles and CICP values (`colr`), so the description passes as it is: PQ stays PQ.
/// - PNG, JPEG, WebP and HEIC store only ICC profiles here: CICP or PNG chunk descriptions become an equivalent ICC
///   profile (Little CMS builds it from the primaries and curve), and HDR pixels, which no ICC v2/v4 profile
///   describes for these formats' readers, are tone-mapped to sRGB. (HEIF could hold nclx, but libheif 1.15 writes
///   no `colr` nclx box for HEVC images — heif-enc's --colour_primaries is lost the same way — so HEIC gets the ICC.)
enum EncodeColor {
    static let formatsWithCICP: Set<String> = ["avif"]

    static func prepare(_ frame: Image, format: String) throws -> Image {
        guard let color = frame.color, !color.isEmpty else { return frame }
        if formatsWithCICP.contains(format) || color.iccProfile != nil { return frame }
        if color.isHDR {
            return try ColorConversion.apply(frame, output: .srgb, eightBit: false, limits: DecodeLimits())
        }
        let icc = ColorConversion.transforms.iccProfile(forDescriptionWithoutOne: color)
        return frame.with(color: icc.map { ColorDescription(iccProfile: $0) })
    }
}
