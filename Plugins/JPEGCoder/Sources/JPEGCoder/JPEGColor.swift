import JPEGCodec
import PluginAPI
import PluginKit

/// A JPEG's ICC profile (APP2 segments) and what becomes of it: RGB and gray profiles go to the host, which
/// converts; a CMYK profile converts the CMYK samples here, through Little CMS, because the host only ever sees
/// RGBA. A CMYK file without a profile keeps the naive conversion (as ImageMagick and browsers without a profile).
struct JPEGColor {
    let profile: [UInt8]?
    let cmyk: Bool
    let inverted: Bool

    init(data: UnsafeBufferPointer<UInt8>, header: jpegc_info) {
        var bytes: UnsafeMutablePointer<UInt8>?
        var size: UInt32 = 0
        // Missing or repeated segments make the profile unusable: the image then reads as sRGB, as in libjpeg-turbo's
        // jpeg_read_icc_profile, rather than failing a decode that can still show the pixels.
        if jpegc_icc_profile(data.baseAddress, data.count, &bytes, &size) == ip_status(IP_STATUS_OK), let bytes, size > 0 {
            profile = Array(UnsafeBufferPointer(start: bytes, count: Int(size)))
        } else {
            profile = nil
        }
        jpegc_free(bytes)
        cmyk = header.color_space == JPEGC_COLOR_CMYK || header.color_space == JPEGC_COLOR_YCCK
        inverted = header.adobe_marker != 0
    }

    /// The transform for a CMYK file with a CMYK profile (nil otherwise); destroy it after the decode.
    func cmykTransform() -> UnsafeMutableRawPointer? {
        guard cmyk, let profile else { return nil }
        return profile.withUnsafeBufferPointer { jpegc_cmyk_transform_create($0.baseAddress, UInt32($0.count), inverted ? 1 : 0) }
    }

    /// What the host is told: the profile, unless it is a CMYK one (converted here, the result is sRGB).
    var reportedFacts: ColorFacts { cmyk ? ColorFacts() : ColorFacts(icc: profile) }
}
