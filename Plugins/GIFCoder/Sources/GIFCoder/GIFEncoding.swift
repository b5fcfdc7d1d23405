import CGIF
import PluginAPI
import PluginKit

/// Encoding: every frame becomes one full-canvas GIF image with its own local palette (`GIFPalette`).
///
/// - Frames must share the first frame's size (the host hands over composited canvases).
/// - Several frames: GIF89a with a NETSCAPE2.0 loop extension from `loop_count` (0 = forever; N = played N
///   times, stored as N - 1 repetitions; 1 = no extension, which plays once) and a graphic control block per frame
///   (delay = duration rounded to centiseconds). When any frame has transparent pixels every frame uses disposal 2
///   (clear to transparent), so earlier frames never show through; otherwise disposal 1 (keep).
/// - `quality`, `speed` and `bit_depth` do not apply (GIF is 8-bit palette, LZW is fixed); `IP_ENCODE_PROGRESSIVE`
///   writes interlaced images.
enum GIFEncoding {
    static func encode(
        frames: UnsafePointer<UnsafePointer<ip_image>?>?, count: UInt32, options: UnsafePointer<ip_encode_options>?,
        call: OpaquePointer?, sink: UnsafePointer<ip_byte_sink>?
    ) throws {
        let (frames, sink) = try EncodeInput.check(frames: frames, count: count, sink: sink)
        let settings = try readOptions(options)
        let width = Int(frames[0].width), height = Int(frames[0].height)
        guard width > 0, height > 0, width <= 65535, height <= 65535 else {
            throw PluginFailure.unsupported("GIF images are 1 to 65535 pixels per side, not \(width)x\(height)")
        }
        for i in 0..<Int(count) where Int(frames[i].width) != width || Int(frames[i].height) != height {
            throw PluginFailure.invalidData("frame \(i) is \(frames[i].width)x\(frames[i].height); every frame must be \(width)x\(height)")
        }
        let animated = count > 1
        // Quantise lazily per frame, but know up front whether any frame is transparent (for the disposal).
        var anyTransparent = false
        if animated {
            for i in 0..<Int(count) {
                try Host.checkCancellation(call)
                if try hasTransparency(frames[i]) { anyTransparent = true; break }
            }
        }

        let writer = GIFSinkWriter(sink)
        defer { withExtendedLifetime(writer) {} }
        var error: Int32 = 0
        guard let gif = EGifOpen(writer.context, gifSinkWrite, &error) else {
            throw PluginFailure.internalError("giflib could not start an encoder (error \(error))")
        }
        var closed = false
        defer { if !closed { EGifCloseFile(gif, nil) } }
        EGifSetGifVersion(gif, true)
        try writer.check(EGifPutScreenDesc(gif, Int32(width), Int32(height), 8, 0, nil), gif, "writing the screen descriptor")
        if animated, settings.loopCount != 1 {
            let repetitions = settings.loopCount == 0 ? 0 : min(Int(settings.loopCount) - 1, 65535)
            var loop: [UInt8] = [1, UInt8(repetitions & 0xFF), UInt8(repetitions >> 8)]
            try writer.check(EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE), gif, "writing the loop extension")
            try writer.check(EGifPutExtensionBlock(gif, 11, "NETSCAPE2.0"), gif, "writing the loop extension")
            try writer.check(EGifPutExtensionBlock(gif, 3, &loop), gif, "writing the loop extension")
            try writer.check(EGifPutExtensionTrailer(gif), gif, "writing the loop extension")
        }
        for i in 0..<Int(count) {
            try Host.checkCancellation(call)
            let rgba = try PixelConversion.straightRGBA8(frames[i])
            var palette = rgba.withUnsafeBufferPointer { GIFPalette(rgba: $0, pixelCount: width * height) }
            if animated || palette.transparentIndex != nil {
                var gcb = GraphicsControlBlock(
                    DisposalMode: anyTransparent ? DISPOSE_BACKGROUND : DISPOSE_DO_NOT, UserInputFlag: false,
                    DelayTime: animated ? Int32(min((Int(frames[i].duration_ms) + 5) / 10, 65535)) : 0,
                    TransparentColor: Int32(palette.transparentIndex ?? Int(NO_TRANSPARENT_COLOR)))
                var bytes = [GifByteType](repeating: 0, count: 4)
                let length = EGifGCBToExtension(&gcb, &bytes)
                try writer.check(EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, Int32(length), bytes), gif, "writing frame \(i)'s control block")
            }
            try writeImage(gif, &palette, width: width, height: height, interlaced: settings.progressive,
                           writer: writer, call: call, frame: i)
        }
        closed = true
        var closeError: Int32 = 0
        if EGifCloseFile(gif, &closeError) != GIF_OK {
            throw writer.failure ?? PluginFailure.io("giflib failed to finish the file (error \(closeError))")
        }
        try writer.flush()
    }

    private static func writeImage(
        _ gif: UnsafeMutablePointer<GifFileType>, _ palette: inout GIFPalette, width: Int, height: Int,
        interlaced: Bool, writer: GIFSinkWriter, call: OpaquePointer?, frame: Int
    ) throws {
        // giflib's colour tables are powers of two from 2 to 256 entries.
        var size = 2
        while size < palette.colors.count { size *= 2 }
        var table = [GifColorType](repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: size)
        for (i, color) in palette.colors.enumerated() {
            table[i] = GifColorType(Red: UInt8(color & 0xFF), Green: UInt8((color >> 8) & 0xFF), Blue: UInt8((color >> 16) & 0xFF))
        }
        guard let map = GifMakeMapObject(Int32(size), table) else {
            throw PluginFailure(IP_STATUS_NO_MEMORY, "cannot allocate a colour table")
        }
        defer { GifFreeMapObject(map) }
        try writer.check(EGifPutImageDesc(gif, 0, 0, Int32(width), Int32(height), interlaced, map), gif, "writing frame \(frame)")
        try palette.indices.withUnsafeMutableBufferPointer { indices in
            for (n, y) in GIFRowOrder(height: height, interlaced: interlaced).enumerated() {
                if n & 63 == 0 { try Host.checkCancellation(call) }
                try writer.check(EGifPutLine(gif, indices.baseAddress! + y * width, Int32(width)), gif, "writing frame \(frame)")
            }
        }
    }

    private static func hasTransparency(_ image: ip_image) throws -> Bool {
        guard image.alpha_mode != IP_ALPHA_NONE else { return false }
        let rgba = try PixelConversion.straightRGBA8(image)
        return stride(from: 3, to: rgba.count, by: 4).contains { rgba[$0] < 128 }
    }

    struct Settings {
        var loopCount: UInt32 = 0
        var progressive = false
    }

    /// The options GIF uses, read within the host's struct_size.
    static func readOptions(_ options: UnsafePointer<ip_encode_options>?) throws -> Settings {
        guard let options else { return Settings() }
        let copy = try EncodeInput.options(options)
        return Settings(loopCount: copy.loop_count, progressive: copy.flags & UInt32(IP_ENCODE_PROGRESSIVE) != 0)
    }
}
