import PluginAPI
import PluginKit

/// Copies libheif's interleaved output into the host's buffer, row by row, polling cancellation.
enum PixelTransfer {
    /// Rows between cancellation checks.
    static let rowsPerCheck = 64

    /// heif_chroma_interleaved_RGBA → IP_PIXEL_RGBA8: same layout, so each row is one copy.
    static func copyRGBA8(
        from source: UnsafePointer<UInt8>, stride sourceStride: Int, into image: ip_image, call: OpaquePointer?
    ) throws {
        guard let target = image.pixels else { throw PluginFailure.internalError("host returned no pixels") }
        let rowBytes = Int(image.width) * 4
        for y in 0..<Int(image.height) {
            if y % rowsPerCheck == 0 { try Host.checkCancellation(call) }
            (target + y * Int(image.stride)).update(from: source + y * sourceStride, count: rowBytes)
        }
    }

    /// heif_chroma_interleaved_RRGGBBAA_LE → IP_PIXEL_RGBA16. libheif keeps `bits`-bit samples in the low bits of
    /// little-endian 16-bit words; the ABI wants the full 0...65535 range, so each sample is widened by bit
    /// replication, `v << (16 - bits) | v >> (2 * bits - 16)`, which maps 0 → 0 and the maximum → 65535 exactly.
    static func copyRGBA16(
        from source: UnsafePointer<UInt8>, stride sourceStride: Int, bits: Int, into image: ip_image, call: OpaquePointer?
    ) throws {
        guard let target = image.pixels else { throw PluginFailure.internalError("host returned no pixels") }
        guard (9...16).contains(bits) else {
            throw PluginFailure.internalError("libheif returned \(bits)-bit samples for a high-bit-depth output")
        }
        let up = UInt16(16 - bits), down = UInt16(max(0, 2 * bits - 16))
        let samples = Int(image.width) * 4
        for y in 0..<Int(image.height) {
            if y % rowsPerCheck == 0 { try Host.checkCancellation(call) }
            let row = UnsafeRawPointer(source + y * sourceStride)
            let out = UnsafeMutableRawPointer(target + y * Int(image.stride)).assumingMemoryBound(to: UInt16.self)
            for index in 0..<samples {
                let value = UInt16(littleEndian: row.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self))
                out[index] = bits == 16 ? value : (value << up) | (value >> down)
            }
        }
    }
}
