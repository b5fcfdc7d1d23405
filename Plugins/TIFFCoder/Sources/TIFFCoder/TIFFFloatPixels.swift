import CTIFF
import PluginAPI
import PluginKit

/// Floating-point pages (32-bit floats and 16-bit halves, grey or RGB, with or without alpha, strips or tiles,
/// contiguous samples), which libtiff's RGBA interface refuses: each strip or tile is decoded by libtiff (the
/// floating-point predictor included) and every sample clipped to [0, 1] into RGBA16 — the range an SDR output holds,
/// as libvips does when it saves such a page to PNG. Straight alpha (TIFF floats carry unassociated alpha in practice;
/// associated alpha is reported as such).
enum TIFFFloatPixels {
    /// The stored page as RGBA16 samples, row after row (width × height × 4).
    static func read(_ file: TIFFFile, call: OpaquePointer?) throws -> [UInt16] {
        let (width, height) = file.storedSize
        let bits = Int(file.u16(Int32(TIFFTAG_BITSPERSAMPLE)) ?? 0)
        let samples = Int(file.u16(Int32(TIFFTAG_SAMPLESPERPIXEL)) ?? 1)
        guard bits == 32 || bits == 16 else { throw PluginFailure.unsupported("\(bits)-bit floating-point TIFF samples (32 and 16 are read)") }
        guard (1...4).contains(samples) else { throw PluginFailure.unsupported("\(samples) floating-point samples per pixel (1 to 4 are read)") }
        guard file.u16(Int32(TIFFTAG_PLANARCONFIG)) != UInt16(PLANARCONFIG_SEPARATE) else {
            throw PluginFailure.unsupported("planar floating-point TIFF pages (contiguous ones are read)")
        }
        let grey = samples <= 2
        let bytesPerPixel = samples * bits / 8
        var output = [UInt16](repeating: 0, count: width * height * 4)
        let tiled = TIFFIsTiled(file.tiff) != 0
        var tileWidth: UInt32 = UInt32(width), tileHeight: UInt32 = 0
        if tiled {
            _ = ip_tiff_u32(file.tiff, UInt32(TIFFTAG_TILEWIDTH), &tileWidth)
            _ = ip_tiff_u32(file.tiff, UInt32(TIFFTAG_TILELENGTH), &tileHeight)
        } else {
            _ = ip_tiff_u32(file.tiff, UInt32(TIFFTAG_ROWSPERSTRIP), &tileHeight)
            tileHeight = min(max(1, tileHeight), UInt32(height))
        }
        guard tileWidth > 0, tileHeight > 0 else { throw PluginFailure.invalidData("the page has no tile or strip size") }
        let blockBytes = Int(tiled ? TIFFTileSize(file.tiff) : TIFFStripSize(file.tiff))
        guard blockBytes >= Int(tileWidth) * Int(tileHeight) * bytesPerPixel || !tiled, blockBytes > 0 else {
            throw PluginFailure.invalidData("the page's tile size does not match its samples")
        }
        var block = [UInt8](repeating: 0, count: blockBytes)
        let blocksAcross = tiled ? (width + Int(tileWidth) - 1) / Int(tileWidth) : 1
        let blocksDown = (height + Int(tileHeight) - 1) / Int(tileHeight)
        for by in 0..<blocksDown {
            try Host.checkCancellation(call)
            for bx in 0..<blocksAcross {
                let index = tiled ? UInt32(by * blocksAcross + bx) : UInt32(by)
                let read = block.withUnsafeMutableBytes { raw in
                    tiled ? TIFFReadEncodedTile(file.tiff, index, raw.baseAddress, tmsize_t(raw.count))
                        : TIFFReadEncodedStrip(file.tiff, index, raw.baseAddress, tmsize_t(raw.count))
                }
                guard read >= 0 else { throw PluginFailure.invalidData(file.error.isEmpty ? "cannot read block \(index)" : file.error) }
                let x0 = bx * Int(tileWidth), y0 = by * Int(tileHeight)
                let rowsHere = min(Int(tileHeight), height - y0), columnsHere = min(Int(tileWidth), width - x0)
                let blockStride = (tiled ? Int(tileWidth) : width) * bytesPerPixel
                guard Int(read) >= (rowsHere - 1) * blockStride + columnsHere * bytesPerPixel else {
                    throw PluginFailure.truncated("block \(index) holds \(read) bytes, fewer than its pixels need")
                }
                block.withUnsafeBytes { raw in
                    for row in 0..<rowsHere {
                        for column in 0..<columnsHere {
                            let base = row * blockStride + column * bytesPerPixel
                            func sample(_ c: Int) -> UInt16 {
                                let value: Float = bits == 32
                                    ? raw.loadUnaligned(fromByteOffset: base + c * 4, as: Float.self)
                                    : Float(Float16(bitPattern: raw.loadUnaligned(fromByteOffset: base + c * 2, as: UInt16.self)))
                                return value.isNaN ? 0 : UInt16(max(0, min(1, value)) * 65535 + 0.5)
                            }
                            let o = ((y0 + row) * width + x0 + column) * 4
                            let colour = grey ? [sample(0), sample(0), sample(0)] : [sample(0), sample(1), sample(2)]
                            output[o] = colour[0]
                            output[o + 1] = colour[1]
                            output[o + 2] = colour[2]
                            let alphaIndex = grey ? 1 : 3
                            output[o + 3] = samples > alphaIndex ? sample(alphaIndex) : 65535
                        }
                    }
                }
            }
        }
        return output
    }
}
