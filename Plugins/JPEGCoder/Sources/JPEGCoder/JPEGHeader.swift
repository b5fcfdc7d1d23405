import JPEGCodec

/// What the decoder reports about a JPEG header, in the words the host shows people.
extension jpegc_info {
    /// True for Exif orientations 5-8, which swap width and height on display.
    static func transposes(_ orientation: Int32) -> Bool { orientation >= 5 && orientation <= 8 }

    /// The displayed size for `orientation` (1 = as stored).
    func displayedSize(orientation: Int32) -> (width: Int, height: Int) {
        Self.transposes(orientation) ? (Int(height), Int(width)) : (Int(width), Int(height))
    }

    var colorSpaceName: String {
        switch color_space {
        case JPEGC_COLOR_GRAY: "gray"
        case JPEGC_COLOR_RGB: "RGB"
        case JPEGC_COLOR_YCBCR: "YCbCr"
        case JPEGC_COLOR_CMYK: adobe_marker != 0 ? "CMYK (Adobe, inverted)" : "CMYK"
        case JPEGC_COLOR_YCCK: adobe_marker != 0 ? "YCCK (Adobe, inverted)" : "YCCK"
        default: "\(components) components"
        }
    }

    var subsamplingName: String {
        withUnsafeBytes(of: subsampling) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// "progressive, YCbCr 4:2:0, 8-bit, JFIF, Exif orientation 6, ICC profile 3144 bytes".
    var details: String {
        var parts = [progressive != 0 ? "progressive" : "baseline"]
        if arithmetic != 0 { parts.append("arithmetic coding") }
        let sampling = subsamplingName
        parts.append(sampling.isEmpty ? colorSpaceName : "\(colorSpaceName) \(sampling)")
        parts.append(decodable != 0 ? "\(precision)-bit" : "\(precision)-bit (not decodable by this libjpeg-turbo)")
        if jfif != 0 { parts.append("JFIF") }
        if has_exif != 0 { parts.append("Exif orientation \(orientation)") }
        // The profile itself travels in the colour fields (`info` shows it); a CMYK one is applied by this coder.
        if icc_size > 0 { parts.append("ICC profile \(icc_size) bytes") }
        return parts.joined(separator: ", ")
    }
}
