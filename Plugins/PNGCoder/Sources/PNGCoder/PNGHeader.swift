import PNGCodec

/// What the decoder reports about a PNG header, in the words the host shows people.
extension pngc_info {
    /// True when the image has an alpha channel or a tRNS transparency chunk.
    var hasAlpha: Bool {
        color_type == PNGC_COLOR_GRAY_ALPHA || color_type == PNGC_COLOR_RGBA || has_trns != 0
    }

    /// Bits per colour channel. A palette's entries are always 8-bit, whatever the index size.
    var channelBitDepth: Int {
        color_type == PNGC_COLOR_PALETTE ? 8 : Int(bit_depth)
    }

    /// "8-bit RGBA", "4-bit palette, tRNS", "16-bit gray, interlaced".
    var details: String {
        let colour: String
        switch color_type {
        case PNGC_COLOR_GRAY: colour = "gray"
        case PNGC_COLOR_RGB: colour = "RGB"
        case PNGC_COLOR_PALETTE: colour = "palette"
        case PNGC_COLOR_GRAY_ALPHA: colour = "gray+alpha"
        case PNGC_COLOR_RGBA: colour = "RGBA"
        default: colour = "colour type \(color_type)"
        }
        var parts = ["\(bit_depth)-bit \(colour)"]
        if has_trns != 0 { parts.append("tRNS") }
        if interlaced != 0 { parts.append("interlaced") }
        return parts.joined(separator: ", ")
    }
}
