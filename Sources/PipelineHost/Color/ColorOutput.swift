/// Which colour space the finishing step delivers.
///
/// The default converts to sRGB, as libvips' thumbnail does (and as browsers display untagged pixels): outputs
/// are then untagged sRGB that every viewer shows correctly, and a P3 phone photo's thumbnail keeps its colours.
public enum ColorOutput: String, Sendable, Hashable, Codable, CaseIterable {
    /// Convert to sRGB (relative colorimetric with black-point compensation; PQ/HLG tone-mapped to SDR).
    case srgb
    /// Convert to Display P3 and label the result, so encoders embed a Display P3 profile.
    case displayP3 = "p3"
    /// Leave the pixels in the source's space, labelled with it: encoders embed its ICC profile or write its CICP
    /// values (PQ stays PQ in AVIF/HEIF); a format that can carry neither gets sRGB at encode time.
    case keep
}
