import CTIFF
import PluginAPI
import PluginKit

/// Pages read strip by strip (or tile by tile) into RGBA16, for what libtiff's RGBA interface cannot give: floating-
/// point samples (32-bit floats and 16-bit halves), which it refuses, and 16-bit integer samples at full precision
/// (it reduces them to 8 bits), when the request asks for high bit depth.
///
/// Grey (with min-is-white inverted) or RGB, with or without alpha, contiguous or planar (configuration 2: one plane
/// per sample, each with its own strips), strips or tiles; libtiff decodes each block (compression and predictor
/// included). Floats are clipped to [0, 1] — the range an SDR output holds, as libvips does when it saves such a
/// page to PNG; NaN reads as 0. Alpha is the file's: associated alpha stays premultiplied and is reported so.
enum TIFFBlockPixels {
    enum Sample {
        case float32, float16, uint16

        var bytes: Int { self == .float32 ? 4 : 2 }
    }

    /// The sample kind of the current page when this reader should take it (nil: the RGBA interface's page).
    static func sample(of file: TIFFFile, highBitDepth: Bool) -> Sample? {
        let bits = Int(file.u16(Int32(TIFFTAG_BITSPERSAMPLE)) ?? 1)
        switch Int(file.u16(Int32(TIFFTAG_SAMPLEFORMAT)) ?? 1) {
        case Int(SAMPLEFORMAT_IEEEFP): return bits == 32 ? .float32 : bits == 16 ? .float16 : .float32  // other widths refused by read
        case Int(SAMPLEFORMAT_UINT):
            let photometric = file.photometric
            let plain = photometric == Int(PHOTOMETRIC_MINISBLACK) || photometric == Int(PHOTOMETRIC_MINISWHITE) || photometric == Int(PHOTOMETRIC_RGB)
            return highBitDepth && bits == 16 && plain ? .uint16 : nil
        default: return nil
        }
    }

    /// The stored page as RGBA16 samples, row after row (width × height × 4).
    static func read(_ file: TIFFFile, as sample: Sample, call: OpaquePointer?) throws -> [UInt16] {
        let bits = Int(file.u16(Int32(TIFFTAG_BITSPERSAMPLE)) ?? 0)
        guard bits == sample.bytes * 8 else {
            throw PluginFailure.unsupported("\(bits)-bit floating-point TIFF samples (32 and 16 are read)")
        }
        let (raw, samples) = try interleaved(file, sampleBytes: sample.bytes, call: call)
        guard (1...4).contains(samples) else { throw PluginFailure.unsupported("\(samples) samples per pixel at \(bits) bits (1 to 4 are read)") }
        let (width, height) = file.storedSize
        let grey = samples <= 2
        let invert = sample == .uint16 && file.photometric == Int(PHOTOMETRIC_MINISWHITE)
        var output = [UInt16](repeating: 65535, count: width * height * 4)
        raw.withUnsafeBytes { bytes in
            for pixel in 0..<(width * height) {
                let o = pixel * 4
                for s in 0..<samples {
                    var value = load(bytes, (pixel * samples + s) * sample.bytes, sample)
                    let isAlpha = s == (grey ? 1 : 3)
                    if invert, !isAlpha { value = 65535 - value }
                    if isAlpha {
                        output[o + 3] = value
                    } else if grey {
                        output[o] = value; output[o + 1] = value; output[o + 2] = value
                    } else {
                        output[o + s] = value
                    }
                }
            }
        }
        return output
    }

    /// Every sample of the stored page, interleaved pixel by pixel (a planar page's planes merged), `sampleBytes`
    /// each, and the samples per pixel. Each strip or tile is decoded by libtiff and checked to hold its pixels.
    static func interleaved(_ file: TIFFFile, sampleBytes: Int, call: OpaquePointer?) throws -> (bytes: [UInt8], samples: Int) {
        let (width, height) = file.storedSize
        let samples = Int(file.u16(Int32(TIFFTAG_SAMPLESPERPIXEL)) ?? 1)
        guard (1...16).contains(samples) else { throw PluginFailure.unsupported("\(samples) samples per pixel") }
        let planar = file.u16(Int32(TIFFTAG_PLANARCONFIG)) == UInt16(PLANARCONFIG_SEPARATE)
        let tiled = TIFFIsTiled(file.tiff) != 0
        var blockWidth = UInt32(width), blockHeight: UInt32 = 0
        if tiled {
            _ = ip_tiff_u32(file.tiff, UInt32(TIFFTAG_TILEWIDTH), &blockWidth)
            _ = ip_tiff_u32(file.tiff, UInt32(TIFFTAG_TILELENGTH), &blockHeight)
        } else {
            _ = ip_tiff_u32(file.tiff, UInt32(TIFFTAG_ROWSPERSTRIP), &blockHeight)
            blockHeight = min(max(1, blockHeight), UInt32(height))
        }
        guard blockWidth > 0, blockHeight > 0 else { throw PluginFailure.invalidData("the page has no tile or strip size") }
        // A block holds every sample of its pixels (contiguous) or one sample of them (planar).
        let blockPixelBytes = (planar ? 1 : samples) * sampleBytes
        let pixelBytes = samples * sampleBytes
        let blockBytes = Int(tiled ? TIFFTileSize(file.tiff) : TIFFStripSize(file.tiff))
        guard blockBytes > 0, !tiled || blockBytes >= Int(blockWidth) * Int(blockHeight) * blockPixelBytes else {
            throw PluginFailure.invalidData("the page's tile size does not match its samples")
        }
        var output = [UInt8](repeating: 0, count: width * height * pixelBytes)
        var block = [UInt8](repeating: 0, count: blockBytes)
        let across = tiled ? (width + Int(blockWidth) - 1) / Int(blockWidth) : 1
        let down = (height + Int(blockHeight) - 1) / Int(blockHeight)
        let blockStride = (tiled ? Int(blockWidth) : width) * blockPixelBytes
        for plane in 0..<(planar ? samples : 1) {
            for by in 0..<down {
                try Host.checkCancellation(call)
                for bx in 0..<across {
                    let index = UInt32(plane * across * down + by * across + bx)
                    let read = block.withUnsafeMutableBytes { raw in
                        tiled ? TIFFReadEncodedTile(file.tiff, index, raw.baseAddress, tmsize_t(raw.count))
                            : TIFFReadEncodedStrip(file.tiff, index, raw.baseAddress, tmsize_t(raw.count))
                    }
                    guard read >= 0 else { throw PluginFailure.invalidData(file.error.isEmpty ? "cannot read block \(index)" : file.error) }
                    let x0 = bx * Int(blockWidth), y0 = by * Int(blockHeight)
                    let rows = min(Int(blockHeight), height - y0), columns = min(Int(blockWidth), width - x0)
                    guard Int(read) >= (rows - 1) * blockStride + columns * blockPixelBytes else {
                        throw PluginFailure.truncated("block \(index) holds \(read) bytes, fewer than its pixels need")
                    }
                    block.withUnsafeBytes { source in
                        output.withUnsafeMutableBytes { target in
                            for row in 0..<rows {
                                let from = row * blockStride, to = ((y0 + row) * width + x0) * pixelBytes
                                if !planar {
                                    target.baseAddress!.advanced(by: to).copyMemory(from: source.baseAddress!.advanced(by: from),
                                                                                    byteCount: columns * pixelBytes)
                                    continue
                                }
                                for column in 0..<columns {
                                    for b in 0..<sampleBytes {
                                        target[to + column * pixelBytes + plane * sampleBytes + b] = source[from + column * sampleBytes + b]
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return (output, samples)
    }

    private static func load(_ raw: UnsafeRawBufferPointer, _ offset: Int, _ sample: Sample) -> UInt16 {
        switch sample {
        case .uint16: return raw.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
        case .float32: return clip(raw.loadUnaligned(fromByteOffset: offset, as: Float.self))
        case .float16: return clip(Float(Float16(bitPattern: raw.loadUnaligned(fromByteOffset: offset, as: UInt16.self))))
        }
    }

    private static func clip(_ value: Float) -> UInt16 { value.isNaN ? 0 : UInt16(max(0, min(1, value)) * 65535 + 0.5) }
}
