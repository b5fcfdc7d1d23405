import CHEIF
import PluginAPI
import PluginKit

/// Turns a borrowed host image into a libheif image for the encoder.
///
/// 8-bit output uses interleaved RGB(A); 10/12-bit output uses little-endian RRGGBB(AA) words holding the
/// sample in their low bits, as libheif expects. Premultiplied input is un-premultiplied first: HEIF stores
/// straight alpha unless a `prem` reference says otherwise, and most readers ignore that reference.
enum HEIFImageBuilder {
    /// Returns a heif_image the caller releases.
    static func make(from frame: ip_image, bits: Int, call: OpaquePointer?) throws -> OpaquePointer {
        let (pixels, input16) = try EncodeInput.rgbaLayout(frame, encoder: "HEIF")
        let alpha = frame.alpha_mode != IP_ALPHA_NONE
        let premultiplied = frame.alpha_mode == IP_ALPHA_PREMULTIPLIED
        let chroma: heif_chroma
        switch (bits > 8, alpha) {
        case (false, false): chroma = heif_chroma_interleaved_RGB
        case (false, true): chroma = heif_chroma_interleaved_RGBA
        case (true, false): chroma = heif_chroma_interleaved_RRGGBB_LE
        case (true, true): chroma = heif_chroma_interleaved_RRGGBBAA_LE
        }
        let width = Int32(clamping: frame.width), height = Int32(clamping: frame.height)
        var image: OpaquePointer?
        try HEIFFailure.check(heif_image_create(width, height, heif_colorspace_RGB, chroma, &image), "creating an image")
        guard let image else { throw PluginFailure.internalError("libheif created no image") }
        var handedOver = false
        defer { if !handedOver { heif_image_release(image) } }
        try HEIFFailure.check(heif_image_add_plane(image, heif_channel_interleaved, width, height, Int32(bits)), "adding a plane")
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride) else {
            throw PluginFailure.internalError("libheif returned no plane")
        }
        let channels = alpha ? 4 : 3
        let maxOut = (1 << bits) - 1
        for y in 0..<Int(frame.height) {
            if y % PixelTransfer.rowsPerCheck == 0 { try Host.checkCancellation(call) }
            let source = UnsafeRawPointer(pixels + y * Int(frame.stride))
            let target = UnsafeMutableRawPointer(plane + y * Int(stride))
            for x in 0..<Int(frame.width) {
                // Samples as 0...1 fractions of their range, un-premultiplied when needed.
                func sample(_ channel: Int) -> Double {
                    input16 ? Double(source.loadUnaligned(fromByteOffset: (x * 4 + channel) * 2, as: UInt16.self)) / 65535
                        : Double(source.load(fromByteOffset: x * 4 + channel, as: UInt8.self)) / 255
                }
                let a = sample(3)
                for channel in 0..<channels {
                    var fraction = sample(channel)
                    if premultiplied, channel < 3 { fraction = a > 0 ? min(1, fraction / a) : 0 }
                    let value = Int((fraction * Double(maxOut)).rounded())
                    if bits > 8 {
                        target.storeBytes(of: UInt16(value).littleEndian, toByteOffset: (x * channels + channel) * 2, as: UInt16.self)
                    } else {
                        target.storeBytes(of: UInt8(value), toByteOffset: x * channels + channel, as: UInt8.self)
                    }
                }
            }
        }
        handedOver = true
        return image
    }
}
