import CAVIF
import PluginAPI
import PluginKit

/// The encode options as libavif settings, read within the host's struct_size.
///
/// Defaults (option 0): quality 75, speed 6 (avifenc's default), bit depth 8 for RGBA8 input and 10 for RGBA16.
/// Quality 1...100 maps linearly onto libavif 0.11's quantizer 63...0 (the formula libavif 1.x uses for its
/// `quality` field); the alpha plane gets the same quantizer. Lossless = quantizer 0, 4:4:4, identity matrix.
/// Below quality 90 chroma is subsampled 4:2:0; from 90 on it is kept 4:4:4.
struct AVIFEncodeSettings {
    static let defaultQuality = 75
    static let defaultSpeed = 6

    var quality = defaultQuality
    var speed = defaultSpeed
    var requestedDepth = 0
    var lossless = false

    init(_ options: UnsafePointer<ip_encode_options>?) throws {
        guard let options else { return }
        let copy = try EncodeInput.options(options)
        if copy.quality > 0 { quality = Int(min(copy.quality, 100)) }
        if copy.speed > 0 { speed = Int(min(copy.speed, 10)) }
        requestedDepth = Int(copy.bit_depth)
        lossless = copy.flags & UInt32(IP_ENCODE_LOSSLESS) != 0
    }

    /// AV1 quantizer 0 (best) ... 63 (worst).
    var quantizer: Int32 {
        lossless ? Int32(AVIF_QUANTIZER_LOSSLESS) : Int32(((100 - quality) * 63 + 50) / 100)
    }

    var yuvFormat: avifPixelFormat { lossless || quality >= 90 ? AVIF_PIXEL_FORMAT_YUV444 : AVIF_PIXEL_FORMAT_YUV420 }

    /// Bits per channel in the file: the request, or 8 / 10 from the input's pixel format. AV1 has 8, 10 and 12.
    func depth(forSixteenBitInput sixteenBit: Bool) throws -> UInt32 {
        switch requestedDepth {
        case 0: return sixteenBit ? 10 : 8
        case 8, 10, 12: return UInt32(requestedDepth)
        default:
            throw PluginFailure.unsupported("AVIF stores 8, 10 or 12 bits per channel, not \(requestedDepth)")
        }
    }
}
